//! Visual prompts (VETL, paper 000, Figure 3): the screenshot with the input to fill framed
//! in red and every clickable framed in blue with its number on a blue tag, drawn with
//! DejaVu Sans (Debian's `fonts-dejavu-core`) so the numbers stay readable at 1280x800.

use std::io::Cursor;
use std::sync::OnceLock;

use ab_glyph::{FontArc, PxScale};
use image::{ImageFormat, Rgba, RgbaImage};
use imageproc::drawing::{draw_filled_rect_mut, draw_hollow_rect_mut, draw_text_mut, text_size};
use imageproc::rect::Rect as PxRect;
use wayfarer_core::llm::Picture;
use wayfarer_core::model::Rect;

const RED: Rgba<u8> = Rgba([230, 20, 20, 255]);
const BLUE: Rgba<u8> = Rgba([20, 70, 230, 255]);
const WHITE: Rgba<u8> = Rgba([255, 255, 255, 255]);

/// Where the font is looked for: Debian's fonts-dejavu-core first (bold reads better on
/// busy screenshots), then other common places.
pub const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf",
];

#[derive(Debug, thiserror::Error)]
pub enum AnnotateError {
    #[error("the screenshot is not a readable PNG: {0}")]
    Image(String),
    #[error(
        "no font to number the clickables with (looked for DejaVu Sans in {}); \
         install it with `apt-get install -y fonts-dejavu-core`",
        FONT_PATHS.join(", ")
    )]
    NoFont,
}

/// The font, loaded once.
pub fn font() -> Option<&'static FontArc> {
    static FONT: OnceLock<Option<FontArc>> = OnceLock::new();
    FONT.get_or_init(|| {
        FONT_PATHS.iter().find_map(|p| {
            let bytes = std::fs::read(p).ok()?;
            FontArc::try_from_vec(bytes).ok()
        })
    })
    .as_ref()
}

/// `picture` with `input` framed in red and `buttons` framed in blue, numbered from 1 in
/// their order, as a PNG. Rects are in page coordinates (the picture's region says which
/// part of the page the image shows); what lies outside the image is not drawn.
pub fn annotate(
    picture: &Picture,
    input: Option<&Rect>,
    buttons: &[Rect],
) -> Result<Vec<u8>, AnnotateError> {
    let font = if buttons.is_empty() {
        None
    } else {
        Some(font().ok_or(AnnotateError::NoFont)?)
    };
    let mut img = image::load_from_memory_with_format(&picture.png, ImageFormat::Png)
        .map_err(|e| AnnotateError::Image(e.to_string()))?
        .to_rgba8();
    // Device pixels per CSS pixel (1 at our default scale factor, 2 on a HiDPI profile).
    let scale = if picture.region.width > 0.0 {
        f64::from(img.width()) / picture.region.width
    } else {
        1.0
    };
    let (iw, ih) = (i64::from(img.width()), i64::from(img.height()));
    let to_px = |r: &Rect| -> Option<(i32, i32, u32, u32)> {
        let x = ((r.x - picture.region.x) * scale).round() as i64;
        let y = ((r.y - picture.region.y) * scale).round() as i64;
        let w = (r.width * scale).round() as i64;
        let h = (r.height * scale).round() as i64;
        let inside = x < iw && y < ih && x + w > 0 && y + h > 0;
        (w > 0 && h > 0 && inside).then_some((x as i32, y as i32, w as u32, h as u32))
    };
    let thick = (2.0 * scale).round().max(2.0) as i32;
    let boxes: Vec<_> = buttons.iter().map(to_px).collect();
    let field = input.and_then(to_px);
    for b in boxes.iter().flatten() {
        frame(&mut img, *b, thick, BLUE);
    }
    if let Some((x, y, w, h)) = field {
        // Red goes on top, and a pixel outside the blue, so the input stays distinct.
        frame(&mut img, (x - 1, y - 1, w + 2, h + 2), thick + 1, RED);
    }
    if let Some(font) = font {
        // 20 px bold digits on a solid tag: 16 px read too small on a full 1280x800 page.
        let px = PxScale::from((20.0 * scale) as f32);
        for (i, b) in boxes.iter().enumerate() {
            let Some((x, y, _, _)) = *b else { continue };
            tag(&mut img, font, px, x, y, &(i + 1).to_string());
        }
    }
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png)
        .map_err(|e| AnnotateError::Image(e.to_string()))?;
    Ok(out.into_inner())
}

/// A hollow rectangle `thick` pixels wide, drawn inwards.
fn frame(img: &mut RgbaImage, (x, y, w, h): (i32, i32, u32, u32), thick: i32, color: Rgba<u8>) {
    for t in 0..thick {
        let (w, h) = (w as i32 - 2 * t, h as i32 - 2 * t);
        if w <= 0 || h <= 0 {
            break;
        }
        draw_hollow_rect_mut(
            img,
            PxRect::at(x + t, y + t).of_size(w as u32, h as u32),
            color,
        );
    }
}

/// The number on a filled blue tag at the box's top-left corner: just above the box when
/// there is room, inside it otherwise.
fn tag(img: &mut RgbaImage, font: &FontArc, px: PxScale, x: i32, y: i32, text: &str) {
    let (tw, th) = text_size(px, font, text);
    let pad = (px.y / 6.0).ceil() as i32;
    let (w, h) = (tw as i32 + 2 * pad, th as i32 + 2 * pad);
    let top = if y - h >= 0 { y - h } else { y };
    let left = x.clamp(0, (img.width() as i32 - w).max(0));
    draw_filled_rect_mut(img, PxRect::at(left, top).of_size(w as u32, h as u32), BLUE);
    draw_text_mut(img, WHITE, left + pad, top + pad, px, font, text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn blank(w: u32, h: u32) -> Picture {
        let img = RgbaImage::from_pixel(w, h, Rgba([250, 250, 250, 255]));
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png).unwrap();
        Picture {
            png: Arc::new(out.into_inner()),
            region: Rect {
                x: 0.0,
                y: 1000.0,
                width: f64::from(w),
                height: f64::from(h),
            },
        }
    }

    fn r(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect {
            x,
            y,
            width: w,
            height: h,
        }
    }

    fn pixel(png: &[u8], x: u32, y: u32) -> Rgba<u8> {
        *image::load_from_memory(png)
            .unwrap()
            .to_rgba8()
            .get_pixel(x, y)
    }

    #[test]
    fn frames_land_where_the_elements_are_in_the_region() {
        let pic = blank(200, 100);
        // Page y 1010 is image y 10.
        let out = annotate(
            &pic,
            Some(&r(10.0, 1010.0, 50.0, 20.0)),
            &[r(100.0, 1050.0, 40.0, 30.0)],
        )
        .unwrap();
        assert_eq!(pixel(&out, 9, 9), RED, "the red frame's corner");
        assert_eq!(
            pixel(&out, 35, 20),
            Rgba([250, 250, 250, 255]),
            "inside stays clear"
        );
        assert_eq!(pixel(&out, 139, 79), BLUE, "the blue frame's far corner");
        // The number's tag sits just above the blue box.
        assert_eq!(pixel(&out, 101, 1049 - 1000 - 2), BLUE);
    }

    #[test]
    fn elements_outside_the_picture_are_left_out() {
        let pic = blank(100, 50);
        let out = annotate(
            &pic,
            Some(&r(10.0, 10.0, 50.0, 20.0)),
            &[r(0.0, 5000.0, 10.0, 10.0)],
        )
        .unwrap();
        let img = image::load_from_memory(&out).unwrap().to_rgba8();
        assert!(img.pixels().all(|p| *p == Rgba([250, 250, 250, 255])));
    }

    #[test]
    fn a_broken_png_is_an_error() {
        let pic = Picture {
            png: Arc::new(b"not a png".to_vec()),
            region: r(0.0, 0.0, 10.0, 10.0),
        };
        assert!(matches!(
            annotate(&pic, None, &[]),
            Err(AnnotateError::Image(_))
        ));
    }
}
