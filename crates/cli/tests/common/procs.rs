//! Processes told apart by an environment variable they inherit from the wayfarer a test
//! started: what a run left behind.

/// Live (not zombie) processes whose environment holds `key=value`: pid and command line.
pub fn marked(key: &str, value: &str) -> Vec<(u32, String)> {
    let want = format!("{key}={value}");
    let mut found = vec![];
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        if !env.split(|b| *b == 0).any(|v| v == want.as_bytes()) {
            continue;
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        if stat.is_empty() || state.starts_with('Z') || state.starts_with('X') {
            continue;
        }
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        found.push((pid, String::from_utf8_lossy(&cmd).replace('\0', " ")));
    }
    found
}
