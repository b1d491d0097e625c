//! The real MiniLM-L6, with `WAYFARER_TEST_MINILM=1` after `bash scripts/ensure-minilm.sh`:
//! unit vectors of 384, paraphrases close and unrelated sentences far, and batching that
//! changes nothing (padding must be masked out). Prints load time and ms per sentence.

use std::time::Instant;

use wayfarer_core::embed::text::TextEmbedder;
use wayfarer_ml::MiniLm;

/// The CLI's allocator, so the printed timings are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn cos(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_diff(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
    a.iter()
        .flatten()
        .zip(b.iter().flatten())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn the_real_minilm_embeds_like_a_sentence_model() {
    if std::env::var("WAYFARER_TEST_MINILM").as_deref() != Ok("1") {
        eprintln!("skipped: set WAYFARER_TEST_MINILM=1 after `bash scripts/ensure-minilm.sh`");
        return;
    }
    let started = Instant::now();
    let mut m = MiniLm::from_dir(&MiniLm::default_dir()).unwrap();
    eprintln!("minilm: loaded in {} ms", started.elapsed().as_millis());
    assert_eq!(m.name(), "minilm-l6");
    assert_eq!(m.dims(), 384);

    let texts = [
        "Click the login button",
        "Press the sign-in button",
        "The weather in Paris is rainy",
        "Add a new owner",
        "Create an owner",
        "Delete a pet",
        "",
    ];
    let v = m.embed(&texts).unwrap();
    assert_eq!(v.len(), texts.len());
    for (t, x) in texts.iter().zip(&v).take(6) {
        assert_eq!(x.len(), 384);
        let n = cos(x, x).sqrt();
        assert!((n - 1.0).abs() < 1e-4, "{t}: norm {n}");
    }
    assert!(v[6].iter().all(|x| *x == 0.0), "an empty text gets zeros");

    let paraphrase = cos(&v[0], &v[1]);
    let unrelated = cos(&v[0], &v[2]);
    let add_create = cos(&v[3], &v[4]);
    let add_delete = cos(&v[3], &v[5]);
    eprintln!(
        "minilm: cos(login, sign-in) {paraphrase:.3}, cos(login, weather) {unrelated:.3}, \
         cos(add owner, create owner) {add_create:.3}, cos(add owner, delete pet) {add_delete:.3}"
    );
    assert!(paraphrase > 0.6, "{paraphrase}");
    assert!(unrelated < 0.3, "{unrelated}");
    assert!(add_create > add_delete, "{add_create} vs {add_delete}");

    // Deterministic: the same batch twice gives the same bits.
    assert_eq!(m.embed(&texts).unwrap(), v);

    // Padding to the batch's longest changes nothing: each text alone gives its vector.
    let long = "Fill in the owner's first name, last name, address, city and telephone, \
                then press the button that adds the owner and check the list of owners";
    let mixed = ["Log in", long, "Create an owner", "Search", ""];
    let together = m.embed(&mixed).unwrap();
    let alone: Vec<Vec<f32>> = mixed
        .iter()
        .map(|t| m.embed(&[t]).unwrap().remove(0))
        .collect();
    let diff = max_diff(&together, &alone);
    eprintln!("minilm: batch vs one by one, max difference {diff:e}");
    assert!(diff < 1e-4, "{diff}");

    // Past 256 tokens the text is cut, not refused.
    let huge = "add an owner ".repeat(400);
    let h = m.embed(&[huge.as_str()]).unwrap();
    assert!((cos(&h[0], &h[0]) - 1.0).abs() < 1e-4);

    // Throughput on a batch of 20 short labels, as a feature database would send them.
    let labels: Vec<String> = (0..20)
        .map(|i| format!("Open the details of owner number {i} and edit the pet"))
        .collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let twenty = m.embed(&labels).unwrap();
    // Past one forward pass's 32 texts, the chunks give the same vectors.
    let forty: Vec<&str> = labels.iter().chain(&labels).copied().collect();
    let both = m.embed(&forty).unwrap();
    assert!(max_diff(&both[..20], &twenty) < 1e-4 && max_diff(&both[20..], &twenty) < 1e-4);
    let started = Instant::now();
    let runs = 5;
    for _ in 0..runs {
        m.embed(&labels).unwrap();
    }
    let per = started.elapsed().as_secs_f64() * 1000.0 / (runs * labels.len()) as f64;
    let started = Instant::now();
    m.embed(&["Click the login button"]).unwrap();
    let one = started.elapsed().as_secs_f64() * 1000.0;
    eprintln!("minilm: {per:.2} ms per sentence in a batch of 20; one sentence alone {one:.1} ms");
}
