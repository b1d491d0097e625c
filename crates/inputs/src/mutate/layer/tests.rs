use proptest::prelude::*;
use rand::SeedableRng;
use wayfarer_core::model::EventKind;

use super::*;
use crate::mutate::catalogue;
use crate::HeuristicInput;

const FORM_URL: &str = "http://app.test/owners/3/edit";

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn field(loc: &str, ty: &str, attrs: &[(&str, &str)]) -> Element {
    Element {
        locator: loc.into(),
        tag: "input".into(),
        input_type: Some(ty.into()),
        attrs: attrs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        actionable: vec!["tag:input".into()],
        visible: true,
        enabled: true,
        form: Some("#f".into()),
        ..Element::default()
    }
}

/// The form page: `fields`, then the submit button `#go`.
fn page(fields: Vec<Element>) -> Observation {
    let mut go = field("#go", "submit", &[]);
    go.tag = "button".into();
    let mut elements = fields;
    elements.push(go);
    Observation {
        url: FORM_URL.into(),
        elements,
        status: Some(200),
        ..Observation::default()
    }
}

fn signup() -> Observation {
    page(vec![
        field("#name", "text", &[("name", "name")]),
        field("#email", "email", &[("name", "email")]),
        field(
            "#age",
            "number",
            &[("name", "age"), ("min", "1"), ("max", "99")],
        ),
    ])
}

fn fields(page: &Observation) -> Vec<&Element> {
    page.elements.iter().filter(|e| e.is_text_input()).collect()
}

fn mutate() -> Mutate {
    Mutate::new(Box::new(HeuristicInput::new()))
}

fn key() -> FormKey {
    FormKey::of(FORM_URL, Some("#f"))
}

/// What the inner generator alone would fill with this rng: the valid values.
fn valid_fill(m: &Mutate, page: &Observation, rng: &ChaCha8Rng) -> Vec<Option<String>> {
    m.inner
        .fork()
        .fill_form(page, &fields(page), &mut rng.clone())
}

/// `page` with `value` typed into `loc`, as the scan would show it.
fn typed(page: &Observation, loc: &str, value: &str) -> Observation {
    let mut out = page.clone();
    let e = out.elements.iter_mut().find(|e| e.locator == loc).unwrap();
    let v = e.shown_after_typing(value);
    e.attrs.insert("value".into(), v);
    out
}

/// Fill the form, type the values, press `#go`: the page moves on when `accept`, else
/// it keeps the values. The values filled.
fn submit(m: &mut Mutate, page: &Observation, r: &mut ChaCha8Rng, accept: bool) -> Vec<String> {
    let values: Vec<String> = m
        .fill_form(page, &fields(page), r)
        .into_iter()
        .map(Option::unwrap)
        .collect();
    let locs: Vec<String> = fields(page).iter().map(|f| f.locator.clone()).collect();
    let mut cur = page.clone();
    for (loc, v) in locs.iter().zip(&values) {
        let next = typed(&cur, loc, v);
        m.learn(
            &cur,
            &Action::on(ActionKind::Type, loc).with_value(v),
            &next,
            &[],
        );
        cur = next;
    }
    let after = if accept {
        Observation {
            url: "http://app.test/owners/3".into(),
            ..Observation::default()
        }
    } else {
        cur.clone()
    };
    m.learn(&cur, &Action::on(ActionKind::Click, "#go"), &after, &[]);
    values
}

/// Single typing into the accepted signup form's name until a boundary value comes.
fn boundary_name(m: &mut Mutate, p: &Observation, r: &mut ChaCha8Rng) -> String {
    let name = fields(p)[0].clone();
    loop {
        let v = m.text_for(&name, p, r);
        if m.note().is_some() {
            return v;
        }
    }
}

fn differing(a: &[String], b: &[Option<String>]) -> usize {
    a.iter()
        .zip(b)
        .filter(|(x, y)| Some(*x) != y.as_ref())
        .count()
}

#[test]
fn the_name_says_mutate() {
    assert_eq!(mutate().name(), "heuristic+mutate");
}

#[test]
fn nothing_is_mutated_before_the_form_was_accepted() {
    let p = signup();
    let mut m = mutate();
    let mut r = rng(3);
    for _ in 0..5 {
        let valid = valid_fill(&m, &p, &r);
        let got = submit(&mut m, &p, &mut r, false);
        assert_eq!(differing(&got, &valid), 0);
        assert_eq!(m.note(), None);
    }
    // Single typing leaves the inner generator's draws as they are.
    let mut plain = HeuristicInput::new();
    let (mut r1, mut r2) = (rng(4), rng(4));
    for f in fields(&p) {
        assert_eq!(m.text_for(f, &p, &mut r1), plain.text_for(f, &p, &mut r2));
    }
}

#[test]
fn valid_and_mutated_submissions_alternate_once_the_form_was_accepted() {
    let p = signup();
    let mut m = mutate();
    let mut r = rng(5);
    let mut kinds = Vec::new();
    // accept, then: mutated rejected, valid accepted, mutated accepted, valid rejected
    // (the state may refuse valid values: the attacks go on), mutated, valid.
    for accept in [true, false, true, true, false, true, false] {
        let valid = valid_fill(&m, &p, &r);
        let got = submit(&mut m, &p, &mut r, accept);
        let n = differing(&got, &valid);
        assert_eq!(n == 1, m.note().is_some(), "{got:?} vs {valid:?}");
        kinds.push(if n == 1 { "mutated" } else { "valid" });
        assert!(n <= 1);
    }
    assert_eq!(
        kinds,
        ["valid", "mutated", "valid", "mutated", "valid", "mutated", "valid"]
    );
    assert_eq!(m.attacks(&key()), (3, 0));
    // An edit form of another record is the same form.
    let mut other = p.clone();
    other.url = "http://app.test/owners/4/edit".into();
    assert!(m.accepted(&FormKey::of_element(&other, &other.elements[0])));
}

/// The boundary rows a one-field form is attacked with, in order, over a round and one
/// more, for a strategy drawing from `stream` of `seed` (as worker `stream` does).
fn attack_order(seed: u64, stream: u64) -> Vec<&'static str> {
    let p = page(vec![field("#city", "text", &[("name", "city")])]);
    let f = fields(&p)[0].clone();
    let rows = catalogue::boundary_values(&f, "Paris").len();
    let mut m = mutate();
    let mut r = rng(seed);
    r.set_stream(stream);
    let mut ids = Vec::new();
    for _ in 0..rows + 1 {
        ids.push(next_attack(&mut m, &p, &f, &mut r).unwrap().id);
    }
    ids
}

/// A valid submission of the one-field form `p`, then an attacked one: the boundary row
/// the attack typed (Err: the value typed, which is no boundary value).
fn next_attack(
    m: &mut Mutate,
    p: &Observation,
    f: &Element,
    r: &mut ChaCha8Rng,
) -> Result<&'static Row, String> {
    submit(m, p, r, true);
    let valid = valid_fill(m, p, r)[0].clone().unwrap();
    let got = submit(m, p, r, false)[0].clone();
    catalogue::boundary_values(f, &valid)
        .into_iter()
        .find(|(_, v)| *v == got)
        .map(|(row, _)| row)
        .ok_or(got)
}

#[test]
fn every_pair_is_tried_before_any_repeats_and_seeds_attack_differently() {
    let p = page(vec![field("#city", "text", &[("name", "city")])]);
    let f = fields(&p)[0].clone();
    let rows = catalogue::boundary_values(&f, "Paris").len();
    let order = |seed: u64| attack_order(seed, 0);
    let a = order(1);
    let mut first: Vec<&str> = a[..rows].to_vec();
    first.sort_unstable();
    first.dedup();
    assert_eq!(first.len(), rows, "a pair repeated within the round: {a:?}");
    assert_eq!(a, order(1), "same seed, same attacks");
    assert_ne!(a, order(2), "another seed attacks in another order");
}

#[test]
fn a_family_of_boundaries_is_drawn_before_a_row_so_many_variants_do_not_crowd_out_few() {
    // A plain text field: its first tier (values HTML accepts, not specific to it) has
    // 2 lengths, 5 Unicode rows and 6 markup and quote rows.
    let p = page(vec![field("#city", "text", &[("name", "city")])]);
    let f = fields(&p)[0].clone();
    let first_tier: Vec<&Row> = catalogue::boundary_values(&f, "Paris")
        .into_iter()
        .map(|(row, _)| row)
        .filter(|row| !row.applies.specific() && row.passes_html())
        .collect();
    let count = |fam: Family| first_tier.iter().filter(|r| r.family == fam).count();
    assert_eq!(
        (
            count(Family::Length),
            count(Family::Unicode),
            count(Family::Markup)
        ),
        (2, 5, 6)
    );
    let mut first_attack = BTreeMap::<Family, u32>::new();
    for seed in 0..300 {
        let mut m = mutate();
        let mut r = rng(seed);
        let row = next_attack(&mut m, &p, &f, &mut r)
            .unwrap_or_else(|got| panic!("seed {seed}: {got:?} is no boundary value"));
        assert!(
            first_tier.iter().any(|r| r.id == row.id),
            "seed {seed}: {} is not of the first tier",
            row.id
        );
        *first_attack.entry(row.family).or_default() += 1;
    }
    // Each family about a third of the time (by rows, lengths would get 2 in 13).
    for fam in [Family::Length, Family::Unicode, Family::Markup] {
        let n = first_attack.get(&fam).copied().unwrap_or(0);
        assert!(
            (70..=130).contains(&n),
            "{fam:?}: {n} of 300 ({first_attack:?})"
        );
    }
}

#[test]
fn single_typing_mutates_half_the_time_and_only_in_accepted_forms() {
    let p = signup();
    let name = fields(&p)[0].clone();
    let mut m = mutate();
    let mut r = rng(9);
    for _ in 0..100 {
        m.text_for(&name, &p, &mut r);
        assert_eq!(m.note(), None);
    }
    submit(&mut m, &p, &mut r, true);
    let mut picked = Vec::new();
    for _ in 0..200 {
        let v = m.text_for(&name, &p, &mut r);
        if m.note().is_some() {
            picked.push(v);
        }
    }
    assert!((60..=140).contains(&picked.len()), "{}", picked.len());
    // Untried first: the first picks are all different rows.
    let rows = catalogue::boundary_values(&name, "Ada Lovelace").len();
    let mut first = picked[..rows].to_vec();
    first.sort();
    first.dedup();
    assert_eq!(first.len(), rows, "{picked:?}");
}

#[test]
fn a_form_holding_a_boundary_value_gets_valid_values_elsewhere() {
    let p = signup();
    let mut m = mutate();
    let mut r = rng(11);
    submit(&mut m, &p, &mut r, true);
    let v = boundary_name(&mut m, &p, &mut r);
    let holding = typed(&p, "#name", &v);
    m.learn(
        &p,
        &Action::on(ActionKind::Type, "#name").with_value(&v),
        &holding,
        &[],
    );
    let rest: Vec<&Element> = fields(&holding)[1..].to_vec();
    let valid = m.inner.fork().fill_form(&holding, &rest, &mut r.clone());
    let got = m.fill_form(&holding, &rest, &mut r);
    assert_eq!(got, valid);
    assert_eq!(m.note(), None);
    // That submission was the attack: the next fill is valid, even after a rejection.
    m.learn(
        &holding,
        &Action::on(ActionKind::Click, "#go"),
        &holding,
        &[],
    );
    assert_eq!(m.attacks(&key()), (1, 0));
    let valid = valid_fill(&m, &p, &r);
    assert_eq!(differing(&submit(&mut m, &p, &mut r, true), &valid), 0);
}

#[test]
fn the_layer_draws_from_its_own_stream_so_the_strategy_s_rng_moves_as_without_it() {
    // The rng a strategy hands in must advance exactly as the inner generator alone
    // advances it, attacks or not: a catalogue change must not reshuffle exploration.
    let p = signup();
    let name = fields(&p)[0].clone();
    let mut m = mutate();
    let mut alone = HeuristicInput::new();
    let (mut r, mut r_alone) = (rng(5), rng(5));
    let mut attacks = 0;
    for i in 0..30 {
        let valid = alone.fill_form(&p, &fields(&p), &mut r_alone);
        attacks += differing(&submit(&mut m, &p, &mut r, i % 4 != 3), &valid);
        assert!(r == r_alone, "fill {i}: the handed rng moved differently");
        let v_alone = alone.text_for(&name, &p, &mut r_alone);
        attacks += usize::from(m.text_for(&name, &p, &mut r) != v_alone);
        assert!(r == r_alone, "typing {i}: the handed rng moved differently");
    }
    assert!(attacks > 5, "the layer attacked only {attacks} times");
}

#[test]
fn what_the_page_no_longer_shows_is_forgotten() {
    let p = signup();
    let mut m = mutate();
    let mut r = rng(12);
    submit(&mut m, &p, &mut r, true);
    let v = boundary_name(&mut m, &p, &mut r);
    let holding = typed(&p, "#name", &v);
    let type_it = Action::on(ActionKind::Type, "#name").with_value(&v);
    m.learn(&p, &type_it, &holding, &[]);
    assert_eq!(m.typed.len(), 1);
    assert!(m.typed[0].boundary);
    // A reset to the same address: the fresh form shows nothing of ours.
    let dead = Action::on(ActionKind::Click, "#nothing");
    m.learn(&p, &dead, &p, &[]);
    assert!(m.typed.is_empty());
}

#[test]
fn an_accepted_form_is_work_left_until_its_attacks_are_spent() {
    let p = signup();
    let go = Action::on(ActionKind::Click, "#go");
    let mut m = mutate();
    let mut r = rng(6);
    submit(&mut m, &p, &mut r, false);
    assert!(
        !m.work_left(&p, &go),
        "a form never accepted holds no attack"
    );
    submit(&mut m, &p, &mut r, true);
    // Only the button that sent it: not a field, another button of the form (a Cancel),
    // or the same button on another page.
    assert!(!m.work_left(&p, &Action::on(ActionKind::Click, "#name")));
    let mut cancel = field("#cancel", "button", &[]);
    cancel.tag = "button".into();
    let mut with_cancel = p.clone();
    with_cancel.elements.push(cancel);
    assert!(!m.work_left(&with_cancel, &Action::on(ActionKind::Click, "#cancel")));
    assert!(m.work_left(&with_cancel, &go));
    let mut elsewhere = p.clone();
    elsewhere.url = "http://app.test/visits/new".into();
    assert!(!m.work_left(&elsewhere, &go));
    let mut valid_between = 0;
    while m.work_left(&p, &go) {
        submit(&mut m, &p, &mut r, true);
        valid_between += u32::from(m.note().is_none());
        assert!(valid_between <= ATTACKS_AS_WORK + 1, "never runs out");
    }
    assert_eq!(m.attacks(&key()).0, ATTACKS_AS_WORK);
}

#[test]
fn a_file_input_of_an_accepted_form_gets_the_uploads_boundary_files_in_turn() {
    let mut pic = field("#pic", "file", &[("name", "pic"), ("accept", "image/*")]);
    pic.actionable = vec!["tag:input".into()];
    let p = page(vec![
        field("#title", "text", &[("name", "title")]),
        pic.clone(),
    ]);
    let mut m = mutate();
    let mut r = rng(8);
    // Before the form took valid values: the file that fits.
    assert_eq!(m.file_for(&pic, &p, &mut r), "photo.png");
    assert!(m.note().is_none());
    submit(&mut m, &p, &mut r, true);
    let mut attacks = Vec::new();
    for _ in 0..40 {
        let v = m.file_for(&pic, &p, &mut r);
        match m.note() {
            Some(n) => {
                assert!(n.starts_with("mutate file: "), "{n}");
                attacks.push(v);
            }
            None => assert_eq!(v, "photo.png"),
        }
    }
    assert!(attacks.len() >= 8 && attacks.len() <= 32, "{attacks:?}");
    assert_eq!(
        attacks[..4],
        [
            "photo.png:0".to_string(),
            format!("photo.png:{}", wayfarer_core::files::LARGE),
            "notes.txt".to_string(),
            "rapport d'été (1) ü.png".to_string(),
        ]
    );
}

#[test]
fn an_attack_that_opened_a_server_branch_is_followed_by_more_on_its_field() {
    let p = signup();
    let go = Action::on(ActionKind::Click, "#go");
    let mut m = mutate();
    let mut r = rng(7);
    submit(&mut m, &p, &mut r, true);
    // A valid submission runs new server code too, and earns the form nothing.
    m.learn_server(&p, &go, 40);
    // The server has new code for the first six broken e-mails, none for the rest.
    let (mut attacked, mut opened) = (Vec::new(), Vec::new());
    while m.work_left(&p, &go) {
        assert!(
            attacked.len() < 3 * ATTACKS_AS_WORK as usize,
            "never runs out"
        );
        let valid = valid_fill(&m, &p, &r);
        let got = submit(&mut m, &p, &mut r, true);
        let field = got
            .iter()
            .zip(&valid)
            .position(|(g, v)| Some(g) != v.as_ref());
        let new_lines = match field {
            Some(1) if opened.iter().filter(|&&o| o).count() < 6 => 25,
            _ => 0,
        };
        m.learn_server(&p, &go, new_lines);
        if let Some(i) = field {
            attacked.push(i);
            opened.push(new_lines > 0);
        }
    }
    // After a broken e-mail opened a branch, the next attack broke the e-mail again.
    for (i, w) in attacked.windows(2).enumerate() {
        if opened[i] {
            assert_eq!(w[1], 1, "attack {} after a branch: {attacked:?}", i + 1);
        }
    }
    assert_eq!(opened.iter().filter(|&&o| o).count(), 6, "{attacked:?}");
    // Two more attacks of work for each branch opened.
    assert_eq!(
        m.attacks(&key()).0,
        ATTACKS_AS_WORK + 6 * ATTACKS_PER_SERVER_BRANCH
    );
}

#[test]
fn typing_into_a_field_of_an_accepted_form_is_work_left_until_its_attacks_are_typed() {
    let p = signup();
    let name = Action::on(ActionKind::Type, "#name");
    let mut m = mutate();
    let mut r = rng(7);
    assert!(!m.work_left(&p, &name));
    submit(&mut m, &p, &mut r, true);
    let mut attacks = 0;
    while m.work_left(&p, &name) {
        let v = boundary_name(&mut m, &p, &mut r);
        m.learn(
            &p,
            &name.clone().with_value(&v),
            &typed(&p, "#name", &v),
            &[],
        );
        attacks += 1;
        assert!(attacks <= ATTACKS_AS_WORK, "never runs out");
    }
    assert_eq!(attacks, ATTACKS_AS_WORK);
}

#[test]
fn a_failed_attack_is_counted() {
    let p = signup();
    let mut m = mutate();
    let mut r = rng(2);
    submit(&mut m, &p, &mut r, true);
    let values: Vec<String> = m
        .fill_form(&p, &fields(&p), &mut r)
        .into_iter()
        .map(Option::unwrap)
        .collect();
    let mut cur = p.clone();
    for (f, v) in ["#name", "#email", "#age"].iter().zip(&values) {
        let next = typed(&cur, f, v);
        m.learn(
            &cur,
            &Action::on(ActionKind::Type, *f).with_value(v),
            &next,
            &[],
        );
        cur = next;
    }
    let boom = Event::new(EventKind::Exception, "TypeError: cannot read 'length'");
    m.learn(&cur, &Action::on(ActionKind::Click, "#go"), &cur, &[boom]);
    assert_eq!(m.attacks(&key()), (1, 1));
}

/// Regression: every worker's layer drew from the same stream of the seed, so three
/// workers tried the same boundary values in the same order (clinic's empty owner
/// search, which lists every owner, turned up in no 3-worker run of six).
#[test]
fn workers_of_one_seed_attack_in_orders_of_their_own() {
    let first = attack_order(5, 0);
    assert_ne!(first, attack_order(5, 1));
    assert_ne!(first, attack_order(5, 2));
    assert_ne!(attack_order(5, 1), attack_order(5, 2));
}

#[test]
fn same_seed_same_values_and_a_fork_goes_on_alike() {
    let p = signup();
    let run = |seed: u64| -> Vec<Vec<String>> {
        let mut m = mutate();
        let mut r = rng(seed);
        (0..12)
            .map(|i| submit(&mut m, &p, &mut r, i % 3 != 2))
            .collect()
    };
    assert_eq!(run(21), run(21));
    assert_ne!(run(21), run(22));
    let mut m = mutate();
    let mut r = rng(30);
    submit(&mut m, &p, &mut r, true);
    let mut copy = m.fork();
    let a = m.fill_form(&p, &fields(&p), &mut r.clone());
    let b = copy.fill_form(&p, &fields(&p), &mut r.clone());
    assert_eq!(a, b);
    assert_eq!(m.note(), copy.note());
    assert!(m.note().is_some());
}

#[test]
fn notes_name_the_field_the_value_and_the_reason() {
    let e = field("#e", "email", &[("name", "email")]);
    let row = catalogue::CATALOGUE
        .iter()
        .find(|r| r.id == "email-no-dot")
        .unwrap();
    assert_eq!(
        note(&e, row, "a@b"),
        "mutate email: \"a@b\" (no dot in the domain: valid HTML, no real address)"
    );
    let long = note(&e, row, &"x".repeat(256));
    assert!(long.contains("… (256 chars)"), "{long}");
}

/// Field types and constraints for the property test.
fn any_field() -> impl Strategy<Value = (usize, u8)> {
    (0usize..8, any::<u8>())
}

fn make_field(i: usize, (kind, knob): (usize, u8)) -> Element {
    let loc = format!("#x{i}");
    let n = (knob % 20 + 3).to_string();
    match kind {
        0 => field(&loc, "text", &[("name", "city"), ("maxlength", &n)]),
        1 => field(&loc, "email", &[("name", "email")]),
        2 => field(&loc, "number", &[("min", "1"), ("max", &n)]),
        3 => field(&loc, "tel", &[("name", "phone")]),
        4 => field(&loc, "date", &[("min", "2020-01-01")]),
        5 => field(&loc, "password", &[("minlength", "8")]),
        6 => field(
            &loc,
            "text",
            &[("name", "start"), ("placeholder", "DD.MM.YYYY")],
        ),
        _ => field(&loc, "url", &[]),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_mutated_fill_differs_from_the_valid_one_in_exactly_one_field(
        kinds in proptest::collection::vec(any_field(), 1..6),
        seed in any::<u64>(),
    ) {
        let p = page(kinds.into_iter().enumerate().map(|(i, k)| make_field(i, k)).collect());
        let mut m = mutate();
        let mut r = rng(seed);
        submit(&mut m, &p, &mut r, true);
        let valid = valid_fill(&m, &p, &r);
        let got: Vec<String> = m
            .fill_form(&p, &fields(&p), &mut r)
            .into_iter()
            .map(Option::unwrap)
            .collect();
        prop_assert_eq!(differing(&got, &valid), 1, "{:?} vs {:?}", got, valid);
        prop_assert!(m.note().is_some());
    }
}

#[test]
fn attacks_spread_over_fields_and_try_what_a_field_declares_first() {
    let p = signup();
    let fs: Vec<Element> = fields(&p).into_iter().cloned().collect();
    let mut m = mutate();
    let mut r = rng(21);
    let mut hits: Vec<(usize, &'static Row)> = Vec::new();
    for _ in 0..60 {
        submit(&mut m, &p, &mut r, true);
        let valid = valid_fill(&m, &p, &r);
        let got = submit(&mut m, &p, &mut r, false);
        let i = (0..got.len())
            .find(|&i| Some(&got[i]) != valid[i].as_ref())
            .expect("an attack changes one field");
        let (row, _) = catalogue::boundary_values(&fs[i], valid[i].as_deref().unwrap())
            .into_iter()
            .find(|(_, v)| *v == got[i])
            .unwrap();
        hits.push((i, row));
    }
    // A field at a time: the name's many generic rows do not crowd out the others.
    for (i, f) in fs.iter().enumerate() {
        let n = hits.iter().filter(|(at, _)| *at == i).count();
        assert!(n >= 10, "field {} attacked {n} times of 60", f.locator);
    }
    // The e-mail field gets its e-mail rows before the rows any text field gets.
    let email: Vec<&Row> = hits
        .iter()
        .filter(|(f, _)| fs[*f].locator == "#email")
        .map(|(_, r)| *r)
        .collect();
    let specific = catalogue::boundary_values(&fs[1], "ada@example.org")
        .iter()
        .filter(|(r, _)| r.applies.specific())
        .count();
    assert!(
        specific >= 5 && email.len() > specific,
        "{specific} {email:?}"
    );
    assert!(
        email[..specific].iter().all(|r| r.applies.specific()),
        "{:?}",
        email.iter().map(|r| r.id).collect::<Vec<_>>()
    );
    assert!(!email[specific].applies.specific());
    // Of those, first the ones HTML lets through (`a@b`): only the server can refuse them.
    let accepted = catalogue::boundary_values(&fs[1], "ada@example.org")
        .iter()
        .filter(|(r, _)| r.applies.specific() && r.passes_html())
        .count();
    assert!(accepted >= 2 && accepted < specific);
    assert!(email[..accepted].iter().all(|r| r.passes_html()));
    assert!(email[accepted..specific].iter().all(|r| !r.passes_html()));
}

/// Answers every field with one value, as a dictionary entry `${NAME}` would.
#[derive(Clone)]
struct Always(&'static str);

impl InputGenerator for Always {
    fn name(&self) -> &str {
        "always"
    }
    fn fork(&self) -> Box<dyn InputGenerator + Send> {
        Box::new(self.clone())
    }
    fn text_for(&mut self, _: &Element, _: &Observation, _: &mut ChaCha8Rng) -> String {
        self.0.to_string()
    }
}

/// Every value the layer types into a maxlength'd e-mail field over many accepted
/// submissions, with `keep` (or not) telling it the value is a secret.
fn values_over_a_secret(keep: bool) -> Vec<String> {
    const SECRET: &str = "zk9-secret@vault.test";
    let p = page(vec![field(
        "#email",
        "email",
        &[("name", "email"), ("maxlength", "30"), ("minlength", "8")],
    )]);
    let mut m = Mutate::new(Box::new(Always(SECRET)));
    if keep {
        m.keep_whole(&Secrets::new([("PW".to_string(), SECRET.to_string())]));
    }
    let mut r = rng(9);
    (0..60)
        .flat_map(|_| submit(&mut m, &p, &mut r, true))
        .collect()
}

#[test]
fn a_secret_is_typed_whole_or_not_at_all() {
    let cut_or_padded = |v: &String| v.contains("zk9-se") && !v.contains("zk9-secret@vault.test");
    // Without being told, boundary values are made of it (cut, padded before the `@`).
    assert!(values_over_a_secret(false).iter().any(cut_or_padded));
    let told = values_over_a_secret(true);
    let bad: Vec<&String> = told.iter().filter(|v| cut_or_padded(v)).collect();
    assert!(bad.is_empty(), "{bad:?}");
    // It is still attacked, with boundary values of its own.
    assert!(told.iter().any(|v| !v.contains("zk9-se")), "{told:?}");
}
