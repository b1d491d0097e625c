//! Files a user uploads, generated from a short spec that an `upload` action carries as
//! its value: `photo.png`, `report.pdf`, or with a size in bytes, `empty.txt:0`,
//! `large.png:6291456`. The same spec makes the same bytes everywhere (the browser that
//! sets the file input, the Playwright test that replays it), so a trace holds no file.

/// Bytes of a "large" file: past the 5 MB a form commonly caps uploads at.
pub const LARGE: usize = 6 * 1024 * 1024;

/// A file to upload: its name, and its size when not the natural one of its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSpec {
    pub name: String,
    pub size: Option<usize>,
}

/// A 1x1 transparent PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x02, 0x00,
    0x00, 0x05, 0x00, 0x01, 0xe9, 0xfa, 0xdc, 0xd8, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44,
    0xae, 0x42, 0x60, 0x82,
];

const PDF: &str = "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n\
2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n";
const CSV: &str = "name,amount\nCoffee,3.50\nTrain,12.00\n";
const JSON: &str = "{\"name\": \"Coffee\", \"amount\": 3.5}\n";
const TEXT: &str = "A file uploaded by wayfarer.\n";

impl FileSpec {
    /// `name` or `name:size`.
    pub fn parse(value: &str) -> FileSpec {
        match value.rsplit_once(':') {
            Some((name, size)) if !name.is_empty() => match size.parse() {
                Ok(n) => FileSpec {
                    name: name.to_string(),
                    size: Some(n),
                },
                Err(_) => FileSpec {
                    name: value.to_string(),
                    size: None,
                },
            },
            _ => FileSpec {
                name: value.to_string(),
                size: None,
            },
        }
    }

    /// The spec as an action's value.
    pub fn value(&self) -> String {
        match self.size {
            Some(n) => format!("{}:{n}", self.name),
            None => self.name.clone(),
        }
    }

    /// The extension, lower-cased ("png"); empty without one.
    pub fn extension(&self) -> String {
        self.name
            .rsplit_once('.')
            .map(|(_, x)| x.to_ascii_lowercase())
            .unwrap_or_default()
    }

    /// The MIME type its extension names.
    pub fn mime(&self) -> &'static str {
        match self.extension().as_str() {
            "png" => "image/png",
            "jpg" | "jpeg" => "image/jpeg",
            "gif" => "image/gif",
            "pdf" => "application/pdf",
            "csv" => "text/csv",
            "json" => "application/json",
            "txt" => "text/plain",
            _ => "application/octet-stream",
        }
    }

    /// The content its type starts with (a real PNG, a real PDF ...), before any size.
    pub fn head(&self) -> &'static [u8] {
        match self.extension().as_str() {
            "png" => PNG,
            "pdf" => PDF.as_bytes(),
            "csv" => CSV.as_bytes(),
            "json" => JSON.as_bytes(),
            _ => TEXT.as_bytes(),
        }
    }

    /// The bytes: the head cut or padded with `a` to the size.
    pub fn bytes(&self) -> Vec<u8> {
        let head = self.head();
        match self.size {
            None => head.to_vec(),
            Some(n) if n <= head.len() => head[..n].to_vec(),
            Some(n) => {
                let mut b = Vec::with_capacity(n);
                b.extend_from_slice(head);
                b.resize(n, b'a');
                b
            }
        }
    }

    /// The name with anything that would leave a directory replaced (a name is the
    /// application's to judge, a path is ours).
    pub fn file_name(&self) -> String {
        let n: String = self
            .name
            .chars()
            .map(|c| {
                if matches!(c, '/' | '\\' | '\0') {
                    '_'
                } else {
                    c
                }
            })
            .collect();
        match n.as_str() {
            "" | "." | ".." => "file".into(),
            _ => n,
        }
    }
}

/// What a file input's `accept` asks for, as a file that fits it: `photo.png` for images,
/// `report.pdf`, `data.csv`, `data.json`, else `notes.txt` (also with no `accept`).
pub fn fitting(accept: Option<&str>) -> FileSpec {
    let name = accept
        .into_iter()
        .flat_map(|a| a.split(','))
        .map(|t| t.trim().to_ascii_lowercase())
        .find_map(|t| {
            Some(match t.as_str() {
                t if t.starts_with("image/") || [".png", ".gif", ".jpg", ".jpeg"].contains(&t) => {
                    "photo.png"
                }
                "application/pdf" | ".pdf" => "report.pdf",
                "text/csv" | ".csv" => "data.csv",
                "application/json" | ".json" => "data.json",
                t if t.starts_with("text/") || t == ".txt" => "notes.txt",
                _ => return None,
            })
        })
        .unwrap_or("notes.txt");
    FileSpec {
        name: name.into(),
        size: None,
    }
}

/// Files that test an upload's edges, each with why: an empty one, a large one, one of
/// another type than `accept` asks for, one with an odd name.
pub fn boundaries(accept: Option<&str>) -> Vec<(FileSpec, &'static str)> {
    let fit = fitting(accept);
    let ext = fit.extension();
    let other = if ext == "png" {
        "notes.txt"
    } else {
        "photo.png"
    };
    vec![
        (
            FileSpec {
                size: Some(0),
                ..fit.clone()
            },
            "an empty file",
        ),
        (
            FileSpec {
                size: Some(LARGE),
                ..fit.clone()
            },
            "6 MB: past a common upload limit",
        ),
        (
            FileSpec {
                name: other.into(),
                size: None,
            },
            "a type the field does not ask for",
        ),
        (
            FileSpec {
                name: format!("rapport d'été (1) ü.{ext}"),
                size: None,
            },
            "spaces, quotes and accents in the name",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_and_make_their_bytes() {
        let s = FileSpec::parse("large.png:100");
        assert_eq!(s.size, Some(100));
        assert_eq!(s.value(), "large.png:100");
        let b = s.bytes();
        assert_eq!(b.len(), 100);
        assert!(b.starts_with(&PNG[..8]));
        assert!(FileSpec::parse("empty.txt:0").bytes().is_empty());
        let plain = FileSpec::parse("report.pdf");
        assert_eq!(plain.size, None);
        assert!(plain.bytes().starts_with(b"%PDF"));
        assert_eq!(plain.mime(), "application/pdf");
        // A colon not followed by a size is part of the name.
        assert_eq!(FileSpec::parse("a:b.txt").name, "a:b.txt");
        assert_eq!(
            FileSpec::parse("../../etc/passwd").file_name(),
            ".._.._etc_passwd"
        );
    }

    #[test]
    fn a_file_input_shows_the_uploaded_file_as_browsers_do() {
        let input = crate::model::Element {
            tag: "input".into(),
            input_type: Some("file".into()),
            ..Default::default()
        };
        assert_eq!(
            input.shown_after_typing("large.png:6291456"),
            "C:\\fakepath\\large.png"
        );
    }

    #[test]
    fn the_fitting_file_follows_accept_and_boundaries_break_it() {
        assert_eq!(fitting(Some("image/*")).name, "photo.png");
        assert_eq!(fitting(Some(".csv, text/plain")).name, "data.csv");
        assert_eq!(fitting(Some("application/pdf")).name, "report.pdf");
        assert_eq!(fitting(None).name, "notes.txt");
        let b = boundaries(Some("image/*"));
        assert_eq!(b[0].0.value(), "photo.png:0");
        assert_eq!(b[1].0.bytes().len(), LARGE);
        assert_eq!(b[2].0.name, "notes.txt");
        assert!(b[3].0.name.ends_with(".png"));
    }
}
