//! The files around the specs that make the export directory a Playwright project:
//! `playwright.config.ts`, `package.json` and the support module `tests/wayfarer.ts`.

use std::fmt::Write as _;

use url::Url;
use wayfarer_core::config::BrowserConfig;

use crate::ts::str_lit;

/// The `@playwright/test` version exported projects pin: the one `tools/playwright`
/// installs (a unit test keeps the two equal).
pub const PLAYWRIGHT_VERSION: &str = "1.65.1";

/// The support module every spec imports (`tests/wayfarer.ts`).
pub const SUPPORT_TS: &str = include_str!("wayfarer.ts");

/// `playwright.config.ts`: Chromium only, headless, one worker, `baseURL` = the start
/// URL's origin (overridable with `BASE_URL` to test another deployment).
pub fn config(
    base: &Url,
    chromium: Option<&str>,
    test_id_attr: &str,
    browser: &BrowserConfig,
) -> String {
    let mut s = String::new();
    let w = &mut s;
    let origin = base.origin().ascii_serialization();
    // Writing to a String cannot fail.
    let _ = writeln!(
        w,
        "// Playwright configuration for the tests wayfarer exported."
    );
    let _ = writeln!(
        w,
        "// Run: PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install && npx playwright test"
    );
    let _ = writeln!(w, "import {{ defineConfig }} from '@playwright/test';");
    let _ = writeln!(w);
    let _ = writeln!(w, "export default defineConfig({{");
    let _ = writeln!(w, "  testDir: 'tests',");
    let _ = writeln!(w, "  timeout: 60_000,");
    let _ = writeln!(w, "  expect: {{ timeout: 5_000 }},");
    let _ = writeln!(
        w,
        "  // The tests share one application: one at a time, in file order."
    );
    let _ = writeln!(w, "  workers: 1,");
    let _ = writeln!(w, "  fullyParallel: false,");
    let _ = writeln!(w, "  retries: 0,");
    let _ = writeln!(w, "  reporter: 'list',");
    let _ = writeln!(w, "  use: {{");
    let _ = writeln!(
        w,
        "    baseURL: process.env.BASE_URL ?? {},",
        str_lit(&origin)
    );
    let _ = writeln!(w, "    headless: true,");
    let _ = writeln!(
        w,
        "    viewport: {{ width: {}, height: {} }},",
        browser.window_width, browser.window_height
    );
    let _ = writeln!(w, "    actionTimeout: 10_000,");
    let _ = writeln!(w, "    navigationTimeout: 15_000,");
    if test_id_attr != "data-testid" {
        let _ = writeln!(w, "    testIdAttribute: {},", str_lit(test_id_attr));
    }
    let _ = writeln!(w, "  }},");
    let _ = writeln!(w, "  projects: [");
    let _ = writeln!(w, "    {{");
    let _ = writeln!(w, "      name: 'chromium',");
    let _ = writeln!(w, "      use: {{");
    let _ = writeln!(w, "        browserName: 'chromium',");
    let _ = writeln!(w, "        launchOptions: {{");
    if let Some(path) = chromium {
        let _ = writeln!(
            w,
            "          // The system's Chromium (CHROME overrides it), never a downloaded one."
        );
        let _ = writeln!(
            w,
            "          executablePath: process.env.CHROME || {},",
            str_lit(path)
        );
    }
    let _ = writeln!(w, "          args: ['--no-sandbox', '--disable-gpu'],");
    let _ = writeln!(w, "        }},");
    let _ = writeln!(w, "      }},");
    let _ = writeln!(w, "    }},");
    let _ = writeln!(w, "  ],");
    let _ = writeln!(w, "}});");
    s
}

/// `package.json`: private, `@playwright/test` pinned.
pub fn package_json() -> String {
    format!(
        r#"{{
  "name": "wayfarer-tests",
  "private": true,
  "description": "Playwright regression tests exported by wayfarer.",
  "scripts": {{
    "test": "playwright test"
  }},
  "devDependencies": {{
    "@playwright/test": "{PLAYWRIGHT_VERSION}"
  }}
}}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_version_is_the_one_tools_playwright_installs() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tools/playwright/package.json"
        );
        let text = std::fs::read_to_string(path).expect("tools/playwright/package.json");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v["devDependencies"]["@playwright/test"].as_str(),
            Some(PLAYWRIGHT_VERSION)
        );
        let ours: serde_json::Value = serde_json::from_str(&package_json()).unwrap();
        assert_eq!(
            ours["devDependencies"]["@playwright/test"].as_str(),
            Some(PLAYWRIGHT_VERSION)
        );
    }
}
