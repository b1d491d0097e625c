//! A strategy's own table of the configuration, `[strategy.NAME]`. Its type lives in the
//! strategy's file and implements [`Settings`]; the strategy reads it with [`read`], and
//! the registry checks every table a file holds before a run starts
//! ([`crate::registry::check`]), so a misspelt key or a value out of range is refused
//! with its name, as anywhere else in the file.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wayfarer_core::config::StrategyConfig;

/// The type of a strategy's table.
pub trait Settings: Default + Serialize + DeserializeOwned {
    /// The table's name: `[strategy.NAME]`.
    const SECTION: &'static str;

    /// The ranges a type cannot say, each message naming its key
    /// (`strategy.NAME.KEY must be ...`).
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// `[strategy.NAME]` of `config`, its defaults where the file says nothing; an error names
/// the table and what is wrong in it.
pub fn read<T: Settings>(config: &StrategyConfig) -> Result<T, String> {
    let Some(value) = config.sections.get(T::SECTION) else {
        return Ok(T::default());
    };
    let settings: T = serde_json::from_value(value.clone())
        .map_err(|e| format!("[strategy.{}]: {e}", T::SECTION))?;
    settings.check()?;
    Ok(settings)
}

/// [`read`] for a configuration already checked (the registry's `check` ran when it was
/// loaded); the defaults if it was not and is wrong.
pub fn read_checked<T: Settings>(config: &StrategyConfig) -> T {
    read(config).unwrap_or_default()
}

/// The message of the first check that does not hold: `(holds, message)` pairs, in the
/// order a reader of the table meets them.
pub fn first_wrong(checks: &[(bool, &str)]) -> Result<(), String> {
    match checks.iter().find(|(ok, _)| !ok) {
        Some((_, msg)) => Err(msg.to_string()),
        None => Ok(()),
    }
}

/// A strategy's table as the registry knows it: its name, its check and its defaults,
/// without its type.
#[derive(Clone, Copy)]
pub struct Section {
    pub name: &'static str,
    /// Parse the table as written and check its ranges.
    pub check: fn(&StrategyConfig) -> Result<(), String>,
    /// The whole table with every default (the book's reference is checked against it).
    pub defaults: fn() -> serde_json::Value,
}

impl Section {
    /// The section of the table `T`.
    pub const fn of<T: Settings>() -> Section {
        Section {
            name: T::SECTION,
            check: check_of::<T>,
            defaults: defaults_of::<T>,
        }
    }
}

fn check_of<T: Settings>(config: &StrategyConfig) -> Result<(), String> {
    read::<T>(config).map(|_| ())
}

fn defaults_of<T: Settings>() -> serde_json::Value {
    serde_json::to_value(T::default()).expect("a strategy's settings serialise")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Probe {
        steps: u32,
        share: f64,
    }

    impl Settings for Probe {
        const SECTION: &'static str = "probe";
        fn check(&self) -> Result<(), String> {
            match self.share <= 1.0 {
                true => Ok(()),
                false => Err("strategy.probe.share must be at most 1".into()),
            }
        }
    }

    fn config(table: serde_json::Value) -> StrategyConfig {
        let mut c = StrategyConfig::default();
        c.sections.insert("probe".into(), table);
        c
    }

    #[test]
    fn a_table_reads_with_its_defaults_and_refuses_what_it_does_not_know() {
        assert_eq!(
            read::<Probe>(&StrategyConfig::default()),
            Ok(Probe::default())
        );
        let c = config(serde_json::json!({ "steps": 7 }));
        assert_eq!(read::<Probe>(&c).unwrap().steps, 7);
        // An integer where a float is asked, as TOML writes `share = 1`.
        let c = config(serde_json::json!({ "share": 1 }));
        assert_eq!(read::<Probe>(&c).unwrap().share, 1.0);
        let e = read::<Probe>(&config(serde_json::json!({ "stesp": 7 }))).unwrap_err();
        assert!(
            e.contains("[strategy.probe]") && e.contains("unknown field `stesp`"),
            "{e}"
        );
        let e = read::<Probe>(&config(serde_json::json!({ "share": 2.0 }))).unwrap_err();
        assert!(e.contains("strategy.probe.share"), "{e}");
        let e = read::<Probe>(&config(serde_json::json!(3))).unwrap_err();
        assert!(e.contains("[strategy.probe]"), "{e}");
        assert_eq!(
            read_checked::<Probe>(&config(serde_json::json!(3))),
            Probe::default()
        );
    }

    #[test]
    fn a_section_knows_its_table_without_its_type() {
        let s = Section::of::<Probe>();
        assert_eq!(s.name, "probe");
        assert_eq!(
            (s.defaults)(),
            serde_json::json!({ "steps": 0, "share": 0.0 })
        );
        assert!((s.check)(&config(serde_json::json!({ "share": 2.0 }))).is_err());
        assert!((s.check)(&StrategyConfig::default()).is_ok());
    }
}
