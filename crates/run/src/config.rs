//! Reading `wayfarer.toml`: `${ENV}` references are filled in from the environment
//! (secrets stay out of the file), then the TOML is parsed into the core `Config`; a
//! `[server]` working directory is resolved against the file's folder.

use std::path::Path;

use wayfarer_core::secrets::Secrets;
use wayfarer_core::trace::unmask;
use wayfarer_core::Config;

use crate::{usage, RunError, Why};

/// Load the configuration file, or the defaults when there is none, with the values
/// its `${NAME}` references brought in (to be masked wherever the run writes).
pub fn load(path: Option<&Path>) -> Result<(Config, Secrets), RunError> {
    let Some(path) = path else {
        return Ok((Config::default(), Secrets::default()));
    };
    let text = std::fs::read_to_string(path)
        .usage(|| format!("cannot read config file {}", path.display()))?;
    let (mut config, secrets) = parse_with_secrets(&text, |k| std::env::var(k).ok())
        .usage(|| format!("invalid config file {}", path.display()))?;
    // A server's relative working directory (or none) is the file's folder, as
    // Playwright's webServer does: `command = "./start.sh"` lives next to the config.
    if let Some(server) = config.server.as_mut() {
        let folder = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
        let cwd = match server.cwd.as_deref() {
            Some(c) if Path::new(c).is_absolute() => c.into(),
            Some(c) => folder.join(c),
            None => folder,
        };
        server.cwd = Some(cwd.to_string_lossy().into_owned());
    }
    Ok((config, secrets))
}

/// Parse configuration text, resolving `${NAME}` with `env`.
#[cfg(test)]
pub fn parse(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<Config, RunError> {
    parse_with_secrets(text, env).map(|(c, _)| c)
}

fn parse_with_secrets(
    text: &str,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(Config, Secrets), RunError> {
    // A comment is no value: a commented-out `value = "${APP_PASSWORD}"` needs no variable.
    let text = without_comments(text);
    check_references(&text)?;
    let mut used = Vec::new();
    let text = substitute(&text, |k| {
        let v = env(k);
        if let Some(v) = &v {
            used.push((k.to_string(), v.clone()));
        }
        v
    })?;
    for (name, value) in &used {
        // Masked wherever it occurs: a short one turns up in URLs and text by chance.
        if value.chars().count() < 4 {
            tracing::warn!(
                "${{{name}}} is {} character(s) long: every occurrence of it in what the \
                 application shows (URLs, titles, messages) is written as ${{{name}}}",
                value.chars().count()
            );
        }
    }
    wayfarer_core::secrets::remember(used.iter().cloned());
    let secrets = Secrets::new(used.clone());
    // TOML errors quote the offending line and our checks quote values: neither may show
    // a secret, raw or as escaped into the text.
    let escaped = Secrets::new(used.into_iter().map(|(k, v)| (k, toml_escape(&v))));
    let config =
        check(&text).map_err(|e| RunError::Usage(escaped.mask(&secrets.mask(&e.to_string()))))?;
    Ok((config, secrets))
}

/// Parse and check the text with its references filled in.
fn check(text: &str) -> Result<Config, RunError> {
    let config: Config = toml::from_str(text).map_err(|e| usage!("{e}"))?;
    for (i, step) in config.login.iter().enumerate() {
        let actions = [
            step.goto.is_some(),
            step.fill.is_some(),
            step.click.is_some(),
        ];
        if actions.iter().filter(|b| **b).count() != 1 {
            return Err(usage!(
                "login step {} must have exactly one of goto, fill, click",
                i + 1
            ));
        }
        if step.fill.is_some() != step.value.is_some() {
            return Err(usage!(
                "login step {}: `fill` needs a `value` (and only `fill` takes one)",
                i + 1
            ));
        }
    }
    for (i, rule) in config.deny.iter().enumerate() {
        if rule.selector.is_none() && rule.text.is_none() {
            return Err(usage!("deny rule {} needs a selector or a text", i + 1));
        }
    }
    for id in config.oracles.checks.keys() {
        if wayfarer_core::check::check(id).is_none() {
            let ids: Vec<&str> = wayfarer_core::check::CHECKS
                .iter()
                .map(|c| c.id())
                .collect();
            return Err(usage!(
                "[oracles.checks]: no check {id:?}; the page checks are {}",
                ids.join(", ")
            ));
        }
    }
    validate(&config)?;
    if let Some(sh) = &config.budget.shrink {
        sh.parse::<crate::ShrinkBudget>()
            .map_err(|e| usage!("budget.shrink: {}", e.replace("--shrink ", "")))?;
    }
    Ok(config)
}

/// Check what types cannot: the ranges of the file's values, each strategy's own table
/// by the strategy that owns it.
pub fn validate(config: &Config) -> Result<(), RunError> {
    config.validate().map_err(RunError::Usage)?;
    wayfarer_strategies::registry::check(&config.strategy).map_err(RunError::Usage)
}

/// `text` with each TOML comment (a `#` outside any string, to the end of its line) cut
/// out; the lines stay where they were, so the parser's line numbers still hold.
fn without_comments(text: &str) -> String {
    #[derive(Clone, Copy, PartialEq)]
    enum In {
        Code,
        Comment,
        /// A string opened by `quote`, `multi` when by three of them.
        Str {
            quote: char,
            multi: bool,
        },
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut state = In::Code;
    let mut i = 0;
    // How many `c` stand at `i` in a row.
    let run = |i: usize, c: char| chars[i..].iter().take_while(|&&x| x == c).count();
    while i < chars.len() {
        let c = chars[i];
        match state {
            In::Comment if c == '\n' => {
                state = In::Code;
                out.push(c);
            }
            In::Comment => {}
            In::Code => match c {
                '#' => state = In::Comment,
                '"' | '\'' => {
                    let multi = run(i, c) >= 3;
                    let n = if multi { 3 } else { 1 };
                    out.extend(&chars[i..i + n]);
                    i += n;
                    state = In::Str { quote: c, multi };
                    continue;
                }
                c => out.push(c),
            },
            In::Str { quote, multi } => {
                if c == '\\' && quote == '"' {
                    // An escape: the character after the backslash cannot end the string.
                    out.extend(chars.get(i..i + 2).unwrap_or(&chars[i..]));
                    i += 2;
                    continue;
                }
                if c == quote {
                    // Up to two quotes may stand just inside a multi-line string's end.
                    let n = if multi { run(i, c) } else { 1 };
                    out.extend(&chars[i..i + n]);
                    i += n;
                    if !multi || n >= 3 {
                        state = In::Code;
                    }
                    continue;
                }
                if c == '\n' && !multi {
                    // Unclosed: the parser says so; the next line is code again.
                    state = In::Code;
                }
                out.push(c);
            }
        }
        i += 1;
    }
    out
}

/// Every `${` must open a `${NAME}` reference: one left open or misspelt would otherwise
/// reach the application (or a trace) as the literal text.
fn check_references(text: &str) -> Result<(), RunError> {
    for (at, _) in text.match_indices("${") {
        let rest = &text[at + 2..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let named = rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        if !(named && rest[name_len..].starts_with('}')) {
            let line = text[..at].matches('\n').count() + 1;
            let shown: String = text[at..]
                .chars()
                .take_while(|c| *c != '\n')
                .take(24)
                .collect();
            return Err(usage!(
                "line {line}: {shown:?} is not a reference; write ${{NAME}} (letters, digits \
                 and _, closed by }})"
            ));
        }
    }
    Ok(())
}

fn substitute(text: &str, mut env: impl FnMut(&str) -> Option<String>) -> Result<String, RunError> {
    // Escaped for a TOML basic string, where references are expected to sit.
    unmask(text, |k| env(k).map(|v| toml_escape(&v)))
        .map_err(|e| usage!("{e} (referenced as ${{NAME}} in the config)"))
}

/// `v` as the inside of a TOML basic string: quotes, backslashes and every control
/// character escaped (a raw newline or NUL would end or break the string).
fn toml_escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;
    use wayfarer_strategies::settings::read;
    use wayfarer_strategies::{CrawlConfig, WebExplorConfig};

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
    fn the_subresource_policy_is_allow_by_default_block_on_request_and_nothing_else() {
        use wayfarer_core::config::Subresources;
        assert_eq!(
            parse("", env).unwrap().scope.subresources,
            Subresources::Allow
        );
        let c = parse("[scope]\nsubresources = \"block\"\n", env).unwrap();
        assert_eq!(c.scope.subresources, Subresources::Block);
        let e = format!(
            "{:#}",
            parse("[scope]\nsubresources = \"deny\"\n", env).unwrap_err()
        );
        assert!(e.contains("allow") && e.contains("block"), "{e}");
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
        let w: WebExplorConfig = read(&c.strategy).unwrap();
        assert_eq!((w.gamma, w.tau), (0.5, 0.25));
        assert_eq!(w.stagnation_steps, 30);
        assert!(read::<CrawlConfig>(&c.strategy).unwrap().back);
        for (text, names) in [
            ("[strategy.webexplor]\ntau = 0\n", "strategy.webexplor.tau"),
            (
                "[strategy.webexplor]\ngamma = 1.0\n",
                "strategy.webexplor.gamma",
            ),
            ("[abstraction]\nthreshold = 1.5\n", "abstraction.threshold"),
            ("[abstraction]\nkind = \"pixels\"\n", "abstraction.kind"),
            ("[strategy.webexplor]\ngama = 0.9\n", "unknown field `gama`"),
            ("[strategy.guided]\nucb = -1\n", "strategy.guided.ucb"),
            ("[strategy.webrled]\ngrid = 1\n", "strategy.webrled.grid"),
            ("[strategy.vetl]\nepsilon = 2\n", "strategy.vetl.epsilon"),
            (
                "[strategy.crawl]\nepisode_steps = 0\n",
                "strategy.crawl.episode_steps",
            ),
            ("[strategy.gided]\nucb = 1\n", "unknown field `gided`"),
            ("[strategy]\nsed = 1\n", "unknown field `sed`"),
        ] {
            let e = format!("{:#}", parse(text, env).unwrap_err());
            assert!(e.contains(names), "{text}: {e}");
        }
    }

    /// The book's configuration chapter (`docs/src/configuration.md`).
    const BOOK: &str = include_str!("../../../docs/src/configuration.md");

    /// The book's configuration example is what users copy: it must parse, and where it
    /// states a default it must state the real one.
    #[test]
    fn the_book_example_parses_and_states_the_defaults() {
        let section = &BOOK[BOOK.find("## A complete example").unwrap()..];
        let start = section.find("```toml\n").unwrap() + "```toml\n".len();
        let text = &section[start..start + section[start..].find("```").unwrap()];
        let c = parse(text, |k| Some(format!("<{k}>"))).unwrap();
        let d = Config::default();
        assert_eq!(c.browser, d.browser, "[browser] of the example");
        assert_eq!(
            read::<WebExplorConfig>(&c.strategy),
            read::<WebExplorConfig>(&d.strategy)
        );
        assert_eq!(
            read::<CrawlConfig>(&c.strategy),
            read::<CrawlConfig>(&d.strategy)
        );
        assert_eq!(c.abstraction, d.abstraction);
        assert_eq!(
            (c.reset.explore, c.reset.timeout_s),
            (d.reset.explore, d.reset.timeout_s),
            "[reset] of the example"
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

    /// An unknown key: the parser's refusal names the keys the table accepts.
    const PROBE: &str = "zz_undocumented_probe";

    /// The keys of the table `header` opens (`""` for the top level, `[a.b]`, `[[a]]`), as
    /// serde lists them when it refuses an unknown one; `None` when `header` opens no table
    /// of named keys (a map, a list, a value).
    fn keys_under(header: &str) -> Option<Vec<String>> {
        let e = parse(&format!("{header}\n{PROBE} = 0\n"), env)
            .err()?
            .to_string();
        let refusal = format!("unknown field `{PROBE}`");
        let rest = &e[e.find(&refusal)? + refusal.len()..];
        // ", expected one of `a`, `b`" (or "expected `a`", "expected `a` or `b`").
        Some(
            rest.split('`')
                .skip(1)
                .step_by(2)
                .map(String::from)
                .collect(),
        )
    }

    /// Every table the parser accepts, by its header, with its keys that are not tables.
    fn accepted() -> BTreeMap<String, BTreeSet<String>> {
        let mut out = BTreeMap::new();
        let mut todo = vec![(String::new(), String::new())];
        while let Some((path, header)) = todo.pop() {
            let mut leaves = BTreeSet::new();
            for key in keys_under(&header).unwrap_or_else(|| panic!("{header}: no keys")) {
                let p = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                if let Some(h) = [format!("[{p}]"), format!("[[{p}]]")]
                    .into_iter()
                    .find(|h| keys_under(h).is_some())
                {
                    todo.push((p, h));
                } else {
                    leaves.insert(key);
                }
            }
            out.insert(header, leaves);
        }
        out
    }

    /// The book's reference: each "### `[table]`" section's rows, key to default cell.
    fn documented() -> BTreeMap<String, BTreeMap<String, String>> {
        let reference = &BOOK[BOOK.find("\n## Reference\n").expect("a Reference section")..];
        let (mut out, mut table, mut fence) = (BTreeMap::new(), None, false);
        for line in reference.lines() {
            fence ^= line.starts_with("```");
            if fence || line.starts_with("```") {
                continue;
            }
            if let Some(h) = line.strip_prefix("### ") {
                table = h.strip_prefix('`').and_then(|h| h.strip_suffix('`'));
                if let Some(t) = table {
                    out.insert(t.to_string(), BTreeMap::new());
                }
            } else if let (Some(t), Some(row)) = (table, line.strip_prefix("| `")) {
                let (key, rest) = row
                    .split_once("` |")
                    .expect("| `key` | default | meaning |");
                let default = rest.split(" | ").next().unwrap_or_default().trim();
                let rows: &mut BTreeMap<String, String> = out.get_mut(t).unwrap();
                rows.insert(key.to_string(), default.to_string());
            }
        }
        out
    }

    /// Whether a reference row's default cell states `value`, the default serialised.
    fn states(cell: &str, value: &toml::Value) -> bool {
        let ticked = |s: &str| cell.contains(&format!("`{s}`"));
        match value {
            toml::Value::String(s) if s.is_empty() => true,
            toml::Value::Float(f) => cell.split('`').skip(1).step_by(2).any(|t| {
                t.parse::<f64>()
                    .is_ok_and(|x| (x - f).abs() <= 1e-6 * f.abs().max(1.0))
            }),
            toml::Value::Array(a) if a.is_empty() => ticked("[]"),
            toml::Value::Table(t) if t.is_empty() => ticked("{}"),
            toml::Value::Array(_) | toml::Value::Table(_) => true,
            v => ticked(&v.to_string()),
        }
    }

    /// Every key the parser accepts is in the book's reference with its default, and the
    /// reference names no key the parser refuses: adding a key to the configuration
    /// without documenting it fails here.
    #[test]
    fn the_book_documents_every_key_with_its_default() {
        let accepted = accepted();
        let documented = documented();
        let mut wrong = Vec::new();
        for (header, keys) in &accepted {
            if header.is_empty() {
                // Top-level keys that are not tables of keys (`inputs`, a map): a section.
                for k in keys
                    .iter()
                    .filter(|k| !documented.contains_key(&format!("[{k}]")))
                {
                    wrong.push(format!("[{k}] has no section"));
                }
                continue;
            }
            let Some(rows) = documented.get(header) else {
                wrong.push(format!("{header} has no section"));
                continue;
            };
            for k in keys.iter().filter(|k| !rows.contains_key(*k)) {
                wrong.push(format!("{header} {k} is not documented"));
            }
            for k in rows.keys().filter(|k| !keys.contains(*k)) {
                wrong.push(format!("{header} {k} is documented but not accepted"));
            }
        }
        let top = &accepted[""];
        for h in documented.keys() {
            let leaf = h.strip_prefix('[').and_then(|h| h.strip_suffix(']'));
            if !accepted.contains_key(h) && !leaf.is_some_and(|k| top.contains(k)) {
                wrong.push(format!("{h} is documented but not a table of the file"));
            }
        }
        // The defaults, every optional table present.
        let config = Config {
            server: Some(Default::default()),
            ..Config::default()
        };
        let mut defaults = toml::Value::try_from(&config).unwrap();
        defaults["strategy"]
            .as_table_mut()
            .unwrap()
            .extend(strategy_defaults());
        for (header, rows) in &documented {
            let path = header.trim_start_matches('[').trim_end_matches(']');
            let Some(table) = path.split('.').try_fold(&defaults, |v, k| v.get(k)) else {
                continue;
            };
            if table.is_array() {
                continue; // `[[deny]]`, `[[login]]`: no step by default
            }
            for (key, cell) in rows {
                match table.get(key) {
                    Some(v) if !states(cell, v) => {
                        wrong.push(format!("{header} {key}: the default is {v}, not {cell}"))
                    }
                    None if !cell.starts_with("unset") => {
                        wrong.push(format!("{header} {key} has no default: say \"unset\""))
                    }
                    _ => {}
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "docs/src/configuration.md and the parser disagree:\n{}",
            wrong.join("\n")
        );
        assert!(accepted.len() > 15, "{accepted:?}");
    }

    /// Every strategy's table with its defaults, as TOML writes it (an unset key left out).
    fn strategy_defaults() -> toml::Table {
        fn to_toml(v: &serde_json::Value) -> Option<toml::Value> {
            use serde_json::Value as J;
            Some(match v {
                J::Null => return None,
                J::Bool(b) => toml::Value::Boolean(*b),
                J::Number(n) => match n.as_i64() {
                    Some(i) => toml::Value::Integer(i),
                    None => toml::Value::Float(n.as_f64()?),
                },
                J::String(s) => toml::Value::String(s.clone()),
                J::Array(a) => toml::Value::Array(a.iter().filter_map(to_toml).collect()),
                J::Object(o) => toml::Value::Table(
                    o.iter()
                        .filter_map(|(k, v)| Some((k.clone(), to_toml(v)?)))
                        .collect(),
                ),
            })
        }
        wayfarer_strategies::registry::sections()
            .iter()
            .map(|s| (s.name.to_string(), to_toml(&(s.defaults)()).unwrap()))
            .collect()
    }

    /// What the run does with a configuration right after reading it: none of it may
    /// panic, and no episode may be of no step (the run would reset for ever).
    fn use_it(c: &Config) {
        if let Some(b) = &c.budget.budget {
            b.parse::<wayfarer_core::Budget>()
                .expect("a budget the file check let through parses");
        }
        assert_ne!(c.budget.episode_steps, Some(0));
        for name in wayfarer_strategies::registry::names() {
            let steps = wayfarer_strategies::default_episode_steps(name, &c.strategy);
            assert!(steps >= 1, "{name}: episodes of {steps} steps");
        }
        // The strategies whose set-up is cheap (webrled's builds its networks).
        for name in ["random", "bfs", "webexplor", "vetl"] {
            let _ = wayfarer_strategies::setup(name, c, None, None, None);
        }
        let _ = c.reset.http_request();
    }

    #[test]
    fn a_check_is_set_by_its_id_and_an_unknown_id_is_refused_with_the_known_ones() {
        let c = parse(
            "[oracles.checks]\nimage_alt = \"fail\"\nduplicate_id = \"off\"\n",
            |_| None,
        )
        .unwrap();
        assert_eq!(
            c.oracles.checks.get("image_alt"),
            Some(&wayfarer_core::config::Severity::Fail)
        );
        let e = parse("[oracles.checks]\nimage_alts = \"warn\"\n", |_| None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("image_alts") && e.ends_with("unnamed_control, image_alt"),
            "{e}"
        );
    }

    /// Parse `text`; a configuration must be usable, an error must say something.
    #[test]
    fn a_reference_in_a_comment_is_not_read() {
        let text = "# value = \"${NOT_SET}\"\n[[login]]\ngoto = \"/login\" # or ${ALSO_NOT_SET}\n\
                    [[login]]\nfill = \"#pw\"\nvalue = \"${PW}\"\n#[[login]]\n#value = \"${X\n";
        let c = parse(text, |k| (k == "PW").then(|| "pw".to_string())).unwrap();
        assert_eq!(c.login[0].goto.as_deref(), Some("/login"));
        assert_eq!(c.login[1].fill.as_deref(), Some("#pw"));
        assert_eq!(c.login[1].value.as_deref(), Some("pw"));
        // Outside a comment, the same reference is still required.
        let e = parse("[[login]]\ngoto = \"${NOT_SET}\"\n", |_| None).unwrap_err();
        assert!(format!("{e:#}").contains("NOT_SET"), "{e:#}");
    }

    #[test]
    fn a_hash_inside_any_string_is_kept() {
        for (text, key, want) in [
            (r#"x = "a # b""#, "x", "a # b"),
            (r#"x = 'a # b' # c"#, "x", "a # b"),
            ("x = \"\"\"\na # b\n\"\"\"", "x", "a # b\n"),
            ("x = '''a # b''' # c", "x", "a # b"),
            (r#"x = "q\" # still" # gone"#, "x", "q\" # still"),
            ("x = \"\"\"a\"\"\"\" # c", "x", "a\""),
            ("\"k # k\" = \"#id\" # c", "k # k", "#id"),
        ] {
            let read: toml::Table = toml::from_str(&without_comments(text)).unwrap();
            assert_eq!(read.get(key).and_then(|v| v.as_str()), Some(want), "{text}");
        }
        // Line numbers stay: the parser's errors point where the file has the mistake.
        assert_eq!(without_comments("# a\n# b\nx = 1 # c\n"), "\n\nx = 1 \n");
    }

    fn parse_checked(text: &str) {
        match parse(text, |k| (k == "SET").then(|| "set".to_string())) {
            Ok(c) => use_it(&c),
            Err(e) => assert!(!format!("{e:#}").trim().is_empty()),
        }
    }

    /// A configuration with every section and a value in every optional field, so that
    /// each of its places can be given something hostile.
    fn everything() -> toml::Value {
        let mut c = Config::default();
        c.scope.allow_origins = vec!["http://127.0.0.1:9000".into()];
        c.deny = vec![wayfarer_core::config::DenyRule {
            selector: Some("#x".into()),
            text: Some("Log out".into()),
        }];
        c.login = vec![wayfarer_core::config::LoginStep {
            goto: None,
            fill: Some("#user".into()),
            value: Some("me".into()),
            click: None,
        }];
        c.inputs.insert("(?i)zip".into(), "75001".into());
        c.budget.budget = Some("300,2m".into());
        c.budget.episode_steps = Some(40);
        c.strategy.name = Some("webexplor".into());
        c.strategy.seed = Some(7);
        c.strategy.inputs = Some("heuristic+mutate".into());
        // Every strategy's table in full, so each of its keys is a place too.
        for (name, table) in strategy_defaults() {
            let json = serde_json::to_value(table).unwrap();
            c.strategy.sections.insert(name, json);
        }
        c.strategy.set("webexplor", "initial_q", 1.0.into());
        c.oracles.ignore = vec!["console_error: .*favicon".into()];
        c.browser.chrome = Some("/usr/bin/chromium".into());
        c.browser.test_id_attributes = vec!["data-qa".into()];
        c.reset.http = Some("POST /__reset".into());
        c.llm.url = Some("http://127.0.0.1:1/v1".into());
        c.llm.model = Some("m".into());
        let v = toml::Value::try_from(&c).unwrap();
        let text = toml::to_string(&v).unwrap();
        assert_eq!(
            parse(&text, env).unwrap(),
            c,
            "the document reads back as written"
        );
        v
    }

    /// One step of a place in a TOML document.
    #[derive(Clone, Debug)]
    enum Step {
        Key(String),
        Index(usize),
    }

    /// Every place in `v`: each table, array and value, by the steps that reach it.
    fn places(v: &toml::Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        match v {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    at.push(Step::Key(k.clone()));
                    places(v, at, out);
                    at.pop();
                }
            }
            toml::Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    at.push(Step::Index(i));
                    places(v, at, out);
                    at.pop();
                }
            }
            _ => {}
        }
        out.push(at.clone());
    }

    fn place<'a>(v: &'a mut toml::Value, at: &[Step]) -> &'a mut toml::Value {
        at.iter().fold(v, |v, s| match s {
            Step::Key(k) => &mut v[k.as_str()],
            Step::Index(i) => &mut v[*i],
        })
    }

    /// Values that have broken parsers: every TOML type, the integer and float extremes,
    /// negative and overflowing durations, references that are not, long and odd text.
    fn hostile() -> Vec<toml::Value> {
        use toml::Value as V;
        let mut table = toml::map::Map::new();
        table.insert("zz".into(), V::Integer(1));
        let mut values = vec![
            V::Table(Default::default()),
            V::Table(table),
            V::Array(vec![]),
            V::Array(vec![V::Integer(1), V::String("a".into())]),
            V::Array(vec![V::Array(vec![])]),
            V::Boolean(true),
            V::Datetime("1979-05-27T07:32:00Z".parse().unwrap()),
        ];
        values.extend(
            [
                0,
                1,
                -1,
                2,
                8,
                65_536,
                1 << 31,
                (1 << 32) - 1,
                1 << 32,
                i64::MAX,
                i64::MIN,
            ]
            .map(V::Integer),
        );
        values.extend(
            [
                0.0,
                -0.0,
                0.5,
                -1.5,
                1e-308,
                1e308,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ]
            .map(V::Float),
        );
        values.extend(
            [
                "",
                "0",
                "-5s",
                "2m",
                "0s",
                "307445734561825861m",
                "99999999999999999999",
                "${",
                "${UNSET}",
                "${SET}",
                "${1X}",
                "(",
                "a{99999}{99999}",
                "POST",
                "random+mutate",
                "webrled",
                "embedding",
                "\u{0}\u{7f}\n",
                "é🦀",
            ]
            .map(|s| V::String(s.into())),
        );
        values.push(V::String("x".repeat(100_000)));
        values
    }

    /// Each place of a full configuration given each hostile value (and an unknown key in
    /// each table): a configuration that can be used, or an error.
    #[test]
    fn every_hostile_value_in_every_place_is_an_error_or_a_usable_config() {
        let base = everything();
        let mut all = Vec::new();
        places(&base, &mut Vec::new(), &mut all);
        let (mut tried, mut parsed, mut panics) = (0, 0, Vec::new());
        for at in &all {
            for value in hostile() {
                let mut doc = base.clone();
                *place(&mut doc, at) = value.clone();
                let Ok(text) = toml::to_string(&doc) else {
                    continue;
                };
                tried += 1;
                if std::panic::catch_unwind(|| parse_checked(&text)).is_err() {
                    let shown: String = format!("{value:?}").chars().take(40).collect();
                    panics.push(format!("{at:?} = {shown}"));
                }
                parsed += parse(&text, env).is_ok() as usize;
            }
            // `inputs` and `strategy.params` take any key.
            let open = matches!(at.last(), Some(Step::Key(k)) if k == "inputs" || k == "params");
            if let (toml::Value::Table(t), false) = (place(&mut base.clone(), at), open) {
                let mut t = t.clone();
                t.insert("zz_unknown".into(), toml::Value::Integer(1));
                let mut doc = base.clone();
                *place(&mut doc, at) = toml::Value::Table(t);
                let e = format!(
                    "{:#}",
                    parse(&toml::to_string(&doc).unwrap(), env).unwrap_err()
                );
                assert!(e.contains("zz_unknown"), "{at:?}: {e}");
            }
        }
        assert!(
            panics.is_empty(),
            "{} panicked:\n{}",
            panics.len(),
            panics.join("\n")
        );
        assert!(
            tried > 2000 && parsed > 100,
            "{tried} tried, {parsed} parsed"
        );
    }

    /// References that are not `${NAME}`: an error that says where, not the literal text
    /// typed into the application.
    #[test]
    fn a_reference_left_open_or_misspelt_is_an_error_naming_its_line() {
        for bad in ["${APP_PASS", "${}", "${1X}", "${A-B}", "${ A }", "${"] {
            let text = format!("[[login]]\nfill = \"#p\"\nvalue = \"{bad}\"\n");
            let e = format!("{:#}", parse(&text, env).unwrap_err());
            assert!(
                e.contains("line 3") && e.contains("not a reference"),
                "{bad}: {e}"
            );
        }
        let e = format!(
            "{:#}",
            parse("[scope]\nallow_origins = [\"${NOPE}\"]\n", env).unwrap_err()
        );
        assert!(e.contains("NOPE") && e.contains("not set"), "{e}");
    }

    /// Any text, control characters included (`any::<String>()` has none), with more of
    /// what quoting and references are made of than chance gives.
    fn any_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let c = prop_oneof![
            3 => any::<char>(),
            1 => prop::sample::select(vec!['\n', '\r', '"', '\'', '\\', '\0', '\u{7f}', '$', '{', '}']),
        ];
        prop::collection::vec(c, 0..64).prop_map(String::from_iter)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        #[test]
        fn any_text_is_a_config_or_an_error(text in any_text()) {
            parse_checked(&text);
        }

        /// Text made of TOML's own punctuation, keys and numbers, so more of it gets past
        /// the first character.
        #[test]
        fn toml_like_text_is_a_config_or_an_error(
            text in r#"(\[{1,2}(scope|budget|strategy|strategy\.webexplor|browser|llm|login|deny|reset)\]{1,2}\n|(budget|episode_steps|gamma|tau|seed|quiet_ms|timeout_s|value|fill|name|x) = (-?[0-9]{1,20}(\.[0-9]+)?|"[^"\n]{0,12}"|\[\]|\{\}|inf|nan|true|'\$\{[A-Z]{0,3}'|"\$\{SET\}")\n|[ \n#=\[\]"'{},.$]){0,24}"#
        ) {
            parse_checked(&text);
        }

        /// Cutting the comments out of a file TOML reads changes nothing TOML reads.
        #[test]
        fn cutting_comments_keeps_every_value(
            text in r#"(\[{1,2}(scope|login|x|"a#b")\]{1,2}\n|(x|y|"k#") = (-?[0-9]{1,3}|"[^"\n]{0,8}"|'[^'\n]{0,8}'|"""[^"]{0,8}"""|'''[^']{0,8}'''|\[\]|true)\n|[ \n#="'\\a]){0,24}"#
        ) {
            if let Ok(read) = toml::from_str::<toml::Table>(&text) {
                let cut = toml::from_str::<toml::Table>(&without_comments(&text));
                proptest::prop_assert_eq!(cut.ok(), Some(read), "{:?}", text);
            }
        }

        /// Whatever a secret holds (quotes, backslashes, newlines, NUL) reaches the
        /// configuration as it is.
        #[test]
        fn any_secret_value_reaches_the_config_unchanged(v in any_text()) {
            let text = "[[login]]\nfill = \"#p\"\nvalue = \"${PW}\"\n\n[inputs]\n\"x\" = \"a ${PW} b\"\n";
            let c = parse(text, |k| (k == "PW").then(|| v.clone())).unwrap();
            proptest::prop_assert_eq!(c.login[0].value.as_deref(), Some(v.as_str()));
            proptest::prop_assert_eq!(&c.inputs["x"], &format!("a {v} b"));
        }

        /// A secret where TOML or the checks reject it is not shown in the error.
        #[test]
        fn a_secret_is_never_shown_in_an_error(v in "[a-z]{6,12}\"?") {
            for text in [
                "[[login]]\nfill = \"#p\"\nvalue = ${PW}\n",
                "[reset]\nhttp = \"${PW}\"\n",
                "[abstraction]\nkind = \"${PW}\"\n",
                "[budget]\nbudget = \"${PW}\"\n",
            ] {
                let e = format!("{:#}", parse(text, |k| (k == "PW").then(|| v.clone())).unwrap_err());
                proptest::prop_assert!(!e.contains(v.trim_end_matches('"')), "{}: {}", text, e);
            }
        }

        /// `load` of any file: a configuration, or an error that names the file.
        #[test]
        fn a_file_of_any_bytes_is_a_config_or_an_error_naming_it(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("wayfarer.toml");
            std::fs::write(&path, &bytes).unwrap();
            if let Err(e) = load(Some(&path)) {
                let e = format!("{e:#}");
                proptest::prop_assert!(e.contains(&path.display().to_string()), "{}", e);
            }
        }
    }

    #[test]
    fn a_missing_file_or_a_directory_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        for path in [dir.path().join("nope.toml"), dir.path().to_path_buf()] {
            let e = format!("{:#}", load(Some(&path)).unwrap_err());
            assert!(e.contains(&path.display().to_string()), "{e}");
        }
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, "[budget]\nepisode_steps = 0\n").unwrap();
        let e = format!("{:#}", load(Some(&path)).unwrap_err());
        assert!(e.contains(&path.display().to_string()), "{e}");
        assert!(e.contains("budget.episode_steps must be at least 1"), "{e}");
    }

    #[test]
    fn the_file_sets_shrinking_and_says_what_is_wrong_with_it() {
        let c = check("[budget]\nshrink = \"90s\"\nconfirm = 5\n").unwrap();
        assert_eq!(c.budget.shrink.as_deref(), Some("90s"));
        assert_eq!(c.budget.confirm, Some(5));
        let e = check("[budget]\nshrink = \"lots\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("budget.shrink") && e.contains("`off`"), "{e}");
        assert!(!e.contains("--shrink"), "{e}");
        let e = check("[budget]\nconfirm = 0\n").unwrap_err().to_string();
        assert!(e.contains("budget.confirm must be at least 1"), "{e}");
    }
}
