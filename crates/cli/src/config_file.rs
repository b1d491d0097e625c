//! Reading `wayfarer.toml`: `${ENV}` references are filled in from the environment
//! (secrets stay out of the file), then the TOML is parsed into the core `Config`.

use std::path::Path;

use anyhow::{bail, Context, Result};
use wayfarer_core::trace::{unmask, Secrets};
use wayfarer_core::Config;

/// Load the configuration file, or the defaults when there is none, with the values
/// its `${NAME}` references brought in (to be masked wherever the run writes).
pub fn load(path: Option<&Path>) -> Result<(Config, Secrets)> {
    let Some(path) = path else {
        return Ok((Config::default(), Secrets::default()));
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read config file {}", path.display()))?;
    parse_with_secrets(&text, |k| std::env::var(k).ok())
        .with_context(|| format!("invalid config file {}", path.display()))
}

/// Parse configuration text, resolving `${NAME}` with `env`.
#[cfg(test)]
pub fn parse(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<Config> {
    parse_with_secrets(text, env).map(|(c, _)| c)
}

fn parse_with_secrets(
    text: &str,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(Config, Secrets)> {
    let mut used = Vec::new();
    let text = substitute(text, |k| {
        let v = env(k);
        if let Some(v) = &v {
            used.push((k.to_string(), v.clone()));
        }
        v
    })?;
    let config: Config = toml::from_str(&text).map_err(|e| anyhow::anyhow!("{e}"))?;
    for (i, step) in config.login.iter().enumerate() {
        let actions = [
            step.goto.is_some(),
            step.fill.is_some(),
            step.click.is_some(),
        ];
        if actions.iter().filter(|b| **b).count() != 1 {
            bail!(
                "login step {} must have exactly one of goto, fill, click",
                i + 1
            );
        }
        if step.fill.is_some() != step.value.is_some() {
            bail!(
                "login step {}: `fill` needs a `value` (and only `fill` takes one)",
                i + 1
            );
        }
    }
    for (i, rule) in config.deny.iter().enumerate() {
        if rule.selector.is_none() && rule.text.is_none() {
            bail!("deny rule {} needs a selector or a text", i + 1);
        }
    }
    config.validate().map_err(|e| anyhow::anyhow!(e))?;
    Ok((config, Secrets::new(used)))
}

fn substitute(text: &str, mut env: impl FnMut(&str) -> Option<String>) -> Result<String> {
    // Escaped for a TOML basic string, where references are expected to sit.
    unmask(text, |k| {
        env(k).map(|v| v.replace('\\', "\\\\").replace('"', "\\\""))
    })
    .map_err(|e| anyhow::anyhow!("{e} (referenced as ${{NAME}} in the config)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r##"
[scope]
allow_origins = ["http://127.0.0.1:9000"]

[[deny]]
text = "Log out"

[[deny]]
selector = "#delete-account"

[[login]]
goto = "/login"

[[login]]
fill = "#email"
value = "${APP_USER}"

[[login]]
fill = "#password"
value = "${APP_PASS}"

[[login]]
click = "button[type=submit]"

[inputs]
"(?i)zip|postal" = "75001"

[budget]
budget = "2m"
episode_steps = 40

[strategy]
name = "random"
seed = 7

[oracles]
http_4xx = true
ignore = ["console_error: .*favicon"]

[browser]
isolate = true
quiet_ms = 150
"##;

    fn env(k: &str) -> Option<String> {
        match k {
            "APP_USER" => Some("demo@example.com".into()),
            "APP_PASS" => Some("p\"w".into()),
            _ => None,
        }
    }

    #[test]
    fn a_full_config_parses_with_secrets_from_the_environment() {
        let c = parse(SAMPLE, env).unwrap();
        assert_eq!(c.scope.allow_origins, vec!["http://127.0.0.1:9000"]);
        assert_eq!(c.deny.len(), 2);
        assert_eq!(c.login[1].value.as_deref(), Some("demo@example.com"));
        assert_eq!(c.login[2].value.as_deref(), Some("p\"w"));
        assert_eq!(c.inputs["(?i)zip|postal"], "75001");
        assert_eq!(c.budget.episode_steps, Some(40));
        assert_eq!(c.strategy.seed, Some(7));
        assert!(c.oracles.http_4xx);
        assert!(c.browser.isolate);
        assert_eq!(c.browser.quiet_ms, 150);
        assert_eq!(
            c.browser.stable_timeout_ms, 5000,
            "unset keys keep defaults"
        );
    }

    #[test]
    fn missing_secrets_and_bad_keys_are_clear_errors() {
        let e = parse(SAMPLE, |_| None).unwrap_err().to_string();
        assert!(e.contains("APP_USER") && e.contains("APP_PASS"), "{e}");
        let e = format!("{:#}", parse("[scope]\nallow = 1\n", env).unwrap_err());
        assert!(e.contains("unknown field"), "{e}");
        let e = parse("[[login]]\nclick = \"#a\"\ngoto = \"/\"\n", env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("exactly one"), "{e}");
        assert!(parse("[[deny]]\n", env).is_err());
        assert!(parse("not toml at all [", env).is_err());
    }

    #[test]
    fn strategy_parameters_parse_and_out_of_range_values_say_which() {
        let c = parse(
            "[abstraction]\nthreshold = 0.9\n[strategy.webexplor]\ngamma = 0.5\ntau = 0.25\n\
             [strategy.crawl]\nback = true\n",
            env,
        )
        .unwrap();
        assert_eq!(c.abstraction.threshold, 0.9);
        assert_eq!(c.abstraction.kind, "tagseq");
        assert_eq!(
            (c.strategy.webexplor.gamma, c.strategy.webexplor.tau),
            (0.5, 0.25)
        );
        assert_eq!(c.strategy.webexplor.stagnation_steps, 30);
        assert!(c.strategy.crawl.back);
        for (text, names) in [
            ("[strategy.webexplor]\ntau = 0\n", "strategy.webexplor.tau"),
            (
                "[strategy.webexplor]\ngamma = 1.0\n",
                "strategy.webexplor.gamma",
            ),
            ("[abstraction]\nthreshold = 1.5\n", "abstraction.threshold"),
            ("[abstraction]\nkind = \"pixels\"\n", "abstraction.kind"),
            ("[strategy.webexplor]\ngama = 0.9\n", "unknown field"),
        ] {
            let e = format!("{:#}", parse(text, env).unwrap_err());
            assert!(e.contains(names), "{text}: {e}");
        }
    }

    /// The README's configuration example is what users copy: it must parse, and where
    /// it states a default it must state the real one.
    #[test]
    fn the_readme_example_parses_and_states_the_defaults() {
        let readme = include_str!("../../../README.md");
        let section = &readme[readme.find("## The configuration file").unwrap()..];
        let start = section.find("```toml\n").unwrap() + "```toml\n".len();
        let text = &section[start..start + section[start..].find("```").unwrap()];
        let c = parse(text, |k| Some(format!("<{k}>"))).unwrap();
        let d = Config::default();
        assert_eq!(c.browser, d.browser, "[browser] of the README");
        assert_eq!(c.strategy.webexplor, d.strategy.webexplor);
        assert_eq!(c.strategy.crawl, d.strategy.crawl);
        assert_eq!(c.abstraction, d.abstraction);
        assert_eq!(
            (c.reset.explore, c.reset.timeout_s),
            (d.reset.explore, d.reset.timeout_s),
            "[reset] of the README"
        );
        assert_eq!(
            c.strategy.name.as_deref(),
            Some(wayfarer_strategies::DEFAULT)
        );
        assert_eq!(
            c.strategy.inputs.as_deref(),
            Some(wayfarer_strategies::default_inputs(
                wayfarer_strategies::DEFAULT
            ))
        );
    }
}
