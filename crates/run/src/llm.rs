//! The language model of a run writing into `out`: `[llm]` with `--llm URL --model NAME`
//! applied, its answers cached in the run store.

use std::path::Path;

use wayfarer_core::config::LlmConfig;
use wayfarer_core::secrets::Secrets;
use wayfarer_llm::SharedClient;
use wayfarer_store::StoreCache;

use crate::RunError;

/// The client, or `None` without an endpoint (the heuristic provider answers then).
pub fn client(
    config: &LlmConfig,
    out: &Path,
    secrets: Secrets,
) -> Result<Option<SharedClient>, RunError> {
    let cache = Box::new(StoreCache::at(out));
    Ok(wayfarer_llm::from_config(config, cache, secrets)
        .map_err(|e| RunError::Usage(e.to_string()))?
        .map(|c| c.shared()))
}
