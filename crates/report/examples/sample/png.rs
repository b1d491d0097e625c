//! A mock page screenshot for the sample report.

/// A 400x260 mock of a page with an error banner, as an uncompressed PNG (stored
/// deflate blocks), so the sample needs no image library.
pub fn mock_screenshot() -> Vec<u8> {
    let (w, h) = (400usize, 260usize);
    let mut px = vec![[255u8, 255, 255]; w * h];
    let mut rect = |x0: usize, y0: usize, x1: usize, y1: usize, c: [u8; 3]| {
        for y in y0..y1.min(h) {
            for x in x0..x1.min(w) {
                px[y * w + x] = c;
            }
        }
    };
    rect(0, 0, 400, 34, [30, 58, 95]);
    for i in 0..4 {
        rect(16 + i * 70, 13, 66 + i * 70, 21, [200, 214, 232]);
    }
    rect(24, 54, 190, 66, [55, 65, 81]);
    for i in 0..3 {
        rect(24, 84 + i * 40, 120, 92 + i * 40, [156, 163, 175]);
        rect(24, 96 + i * 40, 300, 116 + i * 40, [209, 213, 219]);
        rect(25, 97 + i * 40, 299, 115 + i * 40, [255, 255, 255]);
    }
    rect(16, 206, 384, 246, [220, 38, 38]);
    rect(18, 208, 382, 244, [254, 226, 226]);
    rect(30, 220, 250, 230, [153, 27, 27]);
    let mut raw = Vec::with_capacity((w * 3 + 1) * h);
    for row in px.chunks(w) {
        raw.push(0);
        raw.extend(row.iter().flatten());
    }
    let mut z = vec![0x78, 0x01];
    let chunks: Vec<_> = raw.chunks(65_535).collect();
    for (i, c) in chunks.iter().enumerate() {
        z.push(u8::from(i + 1 == chunks.len()));
        z.extend((c.len() as u16).to_le_bytes());
        z.extend((!(c.len() as u16)).to_le_bytes());
        z.extend(*c);
    }
    let (a, b) = raw.iter().fold((1u32, 0u32), |(a, b), &x| {
        (
            (a + x as u32) % 65_521,
            (b + (a + x as u32) % 65_521) % 65_521,
        )
    });
    z.extend(((b << 16) | a).to_be_bytes());
    let mut ihdr = (w as u32).to_be_bytes().to_vec();
    ihdr.extend((h as u32).to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 0]);
    let mut png = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    for (kind, data) in [(b"IHDR", ihdr), (b"IDAT", z), (b"IEND", Vec::new())] {
        png.extend((data.len() as u32).to_be_bytes());
        let body: Vec<u8> = kind.iter().chain(&data).copied().collect();
        let crc = !body.iter().fold(!0u32, |mut c, &x| {
            c ^= x as u32;
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            c
        });
        png.extend(&body);
        png.extend(crc.to_be_bytes());
    }
    png
}
