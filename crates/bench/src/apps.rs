//! Applications from a file (`--apps-file`): real applications a benchmark starts itself,
//! each by the `[server]` of its own configuration, which also holds its login steps,
//! deny rules and known noise. One TOML file lists them:
//!
//! ```toml
//! [[app]]
//! name = "roundup"
//! config = "roundup.toml"   # relative to this file
//! path = "/eval/"           # optional: where exploration starts on the server
//! ```

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use wayfarer_core::secrets::Secrets;
use wayfarer_core::Config;

use crate::BenchError;

/// One application of an apps file, its configuration read (secrets filled in).
#[derive(Debug)]
pub struct AppSpec {
    pub name: String,
    /// Its configuration: `[server]` (required), login, deny and ignore rules ...
    pub config: Config,
    pub secrets: Secrets,
    /// Where exploration starts: a path on the server (default: the server's URL).
    pub path: Option<String>,
    /// The configuration file it was read from.
    pub file: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AppsFile {
    app: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: String,
    config: PathBuf,
    #[serde(default)]
    path: Option<String>,
}

/// Read the apps file at `file` and every configuration it names.
pub fn load(file: &Path) -> Result<Vec<AppSpec>, BenchError> {
    let bad = |why: String| BenchError::Config(format!("apps file {}: {why}", file.display()));
    let text = std::fs::read_to_string(file).map_err(|e| bad(e.to_string()))?;
    let parsed: AppsFile = toml::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let folder = file.parent().unwrap_or(Path::new("."));
    let mut seen = HashSet::new();
    let mut apps = Vec::new();
    for e in parsed.app {
        if e.name.is_empty()
            || !e
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(bad(format!(
                "app name {:?} must be letters, digits, - and _ (it names run directories)",
                e.name
            )));
        }
        if !seen.insert(e.name.clone()) {
            return Err(bad(format!("app {} is listed twice", e.name)));
        }
        if let Some(p) = &e.path {
            if !p.starts_with('/') {
                return Err(bad(format!(
                    "app {}: path {p:?} must start with / (a path on its server)",
                    e.name
                )));
            }
        }
        let config_file = folder.join(&e.config);
        let (config, secrets) = wayfarer_run::config::load(Some(&config_file))
            .map_err(|err| bad(format!("app {}: {err}", e.name)))?;
        if config.server.is_none() {
            return Err(bad(format!(
                "app {}: {} has no [server] to start it (the bench starts every application of \
                 an apps file afresh; use --url for one that is already running)",
                e.name,
                config_file.display()
            )));
        }
        apps.push(AppSpec {
            name: e.name,
            config,
            secrets,
            path: e.path,
            file: config_file,
        });
    }
    if apps.is_empty() {
        return Err(bad("no [[app]] in it".into()));
    }
    Ok(apps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn apps_are_read_with_their_configs_and_bad_entries_are_named() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "a.toml",
            "[server]\ncommand = \"serve {port}\"\n[[deny]]\ntext = \"Log out\"\n",
        );
        write(dir.path(), "plain.toml", "[[deny]]\ntext = \"x\"\n");
        let ok = write(
            dir.path(),
            "apps.toml",
            "[[app]]\nname = \"a\"\nconfig = \"a.toml\"\npath = \"/admin/\"\n",
        );
        let apps = load(&ok).unwrap();
        assert_eq!(apps.len(), 1);
        assert_eq!(apps[0].name, "a");
        assert_eq!(apps[0].path.as_deref(), Some("/admin/"));
        assert_eq!(apps[0].config.deny.len(), 1);
        // The server runs in the config's folder.
        let cwd = apps[0].config.server.as_ref().unwrap().cwd.clone().unwrap();
        assert_eq!(Path::new(&cwd), std::fs::canonicalize(dir.path()).unwrap());
        for (text, says) in [
            (
                "[[app]]\nname = \"p\"\nconfig = \"plain.toml\"\n",
                "has no [server]",
            ),
            (
                "[[app]]\nname = \"a\"\nconfig = \"a.toml\"\n[[app]]\nname = \"a\"\nconfig = \"a.toml\"\n",
                "listed twice",
            ),
            ("[[app]]\nname = \"a b\"\nconfig = \"a.toml\"\n", "must be letters"),
            (
                "[[app]]\nname = \"a\"\nconfig = \"a.toml\"\npath = \"admin\"\n",
                "must start with /",
            ),
            ("[[app]]\nname = \"x\"\nconfig = \"nope.toml\"\n", "nope.toml"),
            ("[[app]]\nname = \"x\"\nconfig = \"a.toml\"\nport = 1\n", "unknown field"),
            ("", "missing field"),
        ] {
            let f = write(dir.path(), "bad.toml", text);
            let e = load(&f).unwrap_err().to_string();
            assert!(e.contains(says) && e.contains("bad.toml"), "{text}: {e}");
        }
    }
}
