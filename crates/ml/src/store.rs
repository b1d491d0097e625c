//! Saving and loading networks: the weights as `<name>.safetensors`, beside a small
//! `<name>.json` that says which kind of network it is and its layer sizes, so a load can
//! rebuild it without being told the sizes and refuse a file that does not fit.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use candle_core::Device;
use serde::{Deserialize, Serialize};

use crate::error::{Context, MlError, Result};
use crate::mlp::Mlp;

/// Bumped when the layout of saved networks changes.
const FORMAT: u32 = 1;

/// Which network a file holds, so an autoencoder is never loaded as a classifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Kind {
    QNetwork,
    Autoencoder,
    Classifier,
}

#[derive(Debug, Serialize, Deserialize)]
struct Meta {
    format: u32,
    kind: Kind,
    sizes: Vec<usize>,
}

fn paths(dir: &Path, name: &str) -> Result<(PathBuf, PathBuf)> {
    // The name becomes a file name: no separators, so it cannot point outside `dir`.
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        return Err(MlError::Input(format!(
            "network name {name:?} is not a plain file name"
        )));
    }
    Ok((
        dir.join(format!("{name}.safetensors")),
        dir.join(format!("{name}.json")),
    ))
}

/// Writes `net` as `<dir>/<name>.safetensors` + `<dir>/<name>.json`, each through a
/// temporary file and a rename, so a crash never leaves half a file under the real name.
pub(crate) fn save(dir: &Path, name: &str, kind: Kind, net: &Mlp) -> Result<()> {
    let (weights, meta) = paths(dir, name)?;
    fs::create_dir_all(dir).map_err(|source| MlError::Io {
        context: "creating the model directory",
        path: dir.to_path_buf(),
        source,
    })?;
    let tmp = weights.with_extension("safetensors.tmp");
    candle_core::safetensors::save(&net.named_tensors(), &tmp)
        .context(&format!("writing {}", tmp.display()))?;
    rename(&tmp, &weights)?;
    let text = serde_json::to_string_pretty(&Meta {
        format: FORMAT,
        kind,
        sizes: net.sizes().to_vec(),
    })
    .expect("sizes serialise");
    let tmp = meta.with_extension("json.tmp");
    fs::write(&tmp, text).map_err(|source| MlError::Io {
        context: "writing",
        path: tmp.clone(),
        source,
    })?;
    rename(&tmp, &meta)
}

fn rename(from: &Path, to: &Path) -> Result<()> {
    fs::rename(from, to).map_err(|source| MlError::Io {
        context: "renaming into place",
        path: to.to_path_buf(),
        source,
    })
}

/// Reads what `save` wrote, checking the kind and that every tensor has the shape the
/// stored sizes call for.
pub(crate) fn load(dir: &Path, name: &str, kind: Kind) -> Result<Mlp> {
    let (weights, meta_path) = paths(dir, name)?;
    let text = fs::read_to_string(&meta_path).map_err(|source| match source.kind() {
        ErrorKind::NotFound => MlError::NotFound {
            path: meta_path.clone(),
        },
        _ => MlError::Io {
            context: "reading",
            path: meta_path.clone(),
            source,
        },
    })?;
    let mismatch = |reason: String| MlError::Mismatch {
        path: meta_path.clone(),
        reason,
    };
    let meta: Meta = serde_json::from_str(&text)
        .map_err(|e| mismatch(format!("not a wayfarer-ml network description ({e})")))?;
    if meta.format != FORMAT {
        return Err(mismatch(format!(
            "format {} (this wayfarer-ml reads format {FORMAT})",
            meta.format
        )));
    }
    if meta.kind != kind {
        return Err(mismatch(format!(
            "it holds a {:?}, not a {kind:?}",
            meta.kind
        )));
    }
    if !weights.exists() {
        return Err(MlError::NotFound { path: weights });
    }
    let tensors = candle_core::safetensors::load(&weights, &Device::Cpu)
        .context(&format!("reading {}", weights.display()))?;
    Mlp::from_named(&meta.sizes, tensors, &weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_must_be_plain_file_names() {
        let dir = tempfile::tempdir().unwrap();
        let net = Mlp::new(&[2, 2], 0).unwrap();
        for bad in ["", "../x", "a/b", ".hidden"] {
            assert!(matches!(
                save(dir.path(), bad, Kind::Classifier, &net),
                Err(MlError::Input(_))
            ));
        }
    }

    #[test]
    fn save_leaves_exactly_the_two_files() {
        let dir = tempfile::tempdir().unwrap();
        let net = Mlp::new(&[3, 4, 2], 0).unwrap();
        save(&dir.path().join("sub"), "m", Kind::QNetwork, &net).unwrap();
        let mut names: Vec<String> = fs::read_dir(dir.path().join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["m.json", "m.safetensors"]);
        let meta: Meta =
            serde_json::from_str(&fs::read_to_string(dir.path().join("sub/m.json")).unwrap())
                .unwrap();
        assert_eq!((meta.kind, meta.sizes), (Kind::QNetwork, vec![3, 4, 2]));
    }
}
