//! `report.json`: the same object `--json` prints, plus every unique failure with its
//! trace and evidence paths.
//!
//! Each entry of `failures` carries its `verdict` ("confirmed", "flaky",
//! "not_reproduced", "unconfirmed"), derived from its `shrunk` result as it is written:
//! the summary holds no verdict of its own, so the two cannot disagree, and a reader of
//! an older report.json (no `verdict`) reads it as before.

use serde::ser::{self, Impossible, SerializeMap, SerializeStruct, Serializer};
use serde::Serialize;
use wayfarer_core::findings::Verdict;
use wayfarer_core::summary::FailureLine;
use wayfarer_core::{Failure, RunSummary, StrategySnapshot};
use wayfarer_store::RunData;

use crate::SeededLine;

/// The `--json` object: the run summary (each failure with its verdict), plus the
/// seeded bugs found for a demo app.
pub struct Summary<'a> {
    pub summary: &'a RunSummary,
    /// Written as `seeded_bugs`, when given.
    pub seeded: Option<&'a [SeededLine]>,
}

impl Serialize for Summary<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.summary.serialize(Fields {
            map: &mut map,
            failures: &self.summary.failures,
        })?;
        if let Some(seeded) = self.seeded {
            map.serialize_entry("seeded_bugs", seeded)?;
        }
        map.end()
    }
}

/// A failure line as written: its fields, then its verdict.
#[derive(Serialize)]
struct WithVerdict<'a> {
    #[serde(flatten)]
    line: &'a FailureLine,
    verdict: Verdict,
}

/// The failure lines, each with its verdict.
struct Lines<'a>(&'a [FailureLine]);

impl Serialize for Lines<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|line| WithVerdict {
            line,
            verdict: line.verdict(),
        }))
    }
}

/// Writes the fields of a `RunSummary` into `map` as its own derived `Serialize` gives
/// them (names, order, skipped ones), `failures` with their verdicts.
struct Fields<'a, M> {
    map: &'a mut M,
    failures: &'a [FailureLine],
}

impl<M: SerializeMap> SerializeStruct for Fields<'_, M> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), M::Error> {
        if key == "failures" {
            self.map.serialize_entry(key, &Lines(self.failures))
        } else {
            self.map.serialize_entry(key, value)
        }
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}

fn not_a_struct<E: ser::Error>() -> E {
    E::custom("the run summary serialises as a struct")
}

macro_rules! not_a_struct {
    ($($method:ident($($ty:ty),*);)*) => {
        $(fn $method(self, $(_: $ty),*) -> Result<(), M::Error> {
            Err(not_a_struct())
        })*
    };
}

/// Only `serialize_struct` is called (a `RunSummary` is a struct); the rest are errors.
impl<'a, M: SerializeMap> Serializer for Fields<'a, M> {
    type Ok = ();
    type Error = M::Error;
    type SerializeSeq = Impossible<(), M::Error>;
    type SerializeTuple = Impossible<(), M::Error>;
    type SerializeTupleStruct = Impossible<(), M::Error>;
    type SerializeTupleVariant = Impossible<(), M::Error>;
    type SerializeMap = Impossible<(), M::Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), M::Error>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, M::Error> {
        Ok(self)
    }

    not_a_struct! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_str(&str);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), M::Error> {
        Err(not_a_struct())
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), M::Error> {
        Err(not_a_struct())
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), M::Error> {
        Err(not_a_struct())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, M::Error> {
        Err(not_a_struct())
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, M::Error> {
        Err(not_a_struct())
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, M::Error> {
        Err(not_a_struct())
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, M::Error> {
        Err(not_a_struct())
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, M::Error> {
        Err(not_a_struct())
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, M::Error> {
        Err(not_a_struct())
    }
}

#[derive(Serialize)]
struct Detail<'a> {
    #[serde(flatten)]
    failure: &'a Failure,
    /// The replayable trace written for it, relative to the run directory.
    trace_file: String,
    screenshot: Option<String>,
}

#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    summary: Summary<'a>,
    /// False when the run was cut short before writing its summary.
    complete: bool,
    failure_details: Vec<Detail<'a>>,
    /// What the strategy learned (counters and tables), for strategies that keep state.
    #[serde(skip_serializing_if = "Option::is_none")]
    strategy_state: Option<&'a StrategySnapshot>,
    /// The state-inference knowledge base (most confirmed interactions first), when
    /// inference was on.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    knowledge: &'a [wayfarer_core::runner::KnowledgeRow],
}

/// The --json summary plus the failures with their traces, for scripts.
pub struct Json;

impl crate::format::Format for Json {
    fn name(&self) -> &'static str {
        "json"
    }
    fn about(&self) -> &'static str {
        "The --json summary plus the failures with their traces, for scripts."
    }
    fn file(&self) -> &'static str {
        "report.json"
    }
    fn render(&self, input: &crate::format::Input<'_>) -> String {
        render(input.data, input.seeded)
    }
}

pub fn render(data: &RunData, seeded: Option<&[SeededLine]>) -> String {
    let details = data
        .failures
        .iter()
        .enumerate()
        .map(|(i, f)| Detail {
            failure: &f.failure,
            trace_file: format!("traces/{}", crate::traces::file_name(i, &f.failure)),
            screenshot: f
                .screenshot
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
        })
        .collect();
    serde_json::to_string_pretty(&Report {
        summary: Summary {
            summary: &data.summary,
            seeded,
        },
        complete: data.complete,
        failure_details: details,
        strategy_state: data.strategy.as_ref(),
        knowledge: &data.knowledge,
    })
    .expect("the report always serialises")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn verdicts(json: &str) -> Vec<String> {
        let v: Value = serde_json::from_str(json).unwrap();
        v["failures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["verdict"].as_str().unwrap_or("(none)").to_string())
            .collect()
    }

    #[test]
    fn each_failure_carries_its_verdict() {
        let mut data = crate::ci::tests::sample_run();
        data.summary.failures[2].shrunk = None;
        let json = render(&data, None);
        assert_eq!(verdicts(&json), ["confirmed", "flaky", "unconfirmed"]);
        let s = data.summary.failures[1].shrunk.as_mut().unwrap();
        s.hits = 0;
        let summary = serde_json::to_string(&Summary {
            summary: &data.summary,
            seeded: None,
        })
        .unwrap();
        assert_eq!(
            verdicts(&summary),
            ["confirmed", "not_reproduced", "unconfirmed"]
        );
        let never = crate::ci::tests::never_replayed_run();
        assert_eq!(
            verdicts(&render(&never, None)),
            ["unconfirmed", "unconfirmed", "unconfirmed"]
        );
    }

    #[test]
    fn the_verdict_is_all_that_is_added_to_the_summary() {
        let data = crate::ci::tests::sample_run();
        let text = serde_json::to_string(&Summary {
            summary: &data.summary,
            seeded: None,
        })
        .unwrap();
        let mut written: Value = serde_json::from_str(&text).unwrap();
        for f in written["failures"].as_array_mut().unwrap() {
            assert!(f.as_object_mut().unwrap().remove("verdict").is_some());
        }
        assert_eq!(written, serde_json::to_value(&data.summary).unwrap());
        // Byte for byte the summary's own serialisation (names, order), but the verdicts.
        let mut stripped = text.clone();
        for v in ["confirmed", "flaky", "not_reproduced", "unconfirmed"] {
            stripped = stripped.replace(&format!(",\"verdict\":\"{v}\""), "");
        }
        assert_eq!(stripped, serde_json::to_string(&data.summary).unwrap());
    }
}
