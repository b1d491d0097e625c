use super::*;

fn field(tag: &str, ty: Option<&str>, attrs: &[(&str, &str)]) -> Element {
    Element {
        locator: "#f".into(),
        xpath: "/html[1]/body[1]/form[1]/input[1]".into(),
        tag: tag.into(),
        input_type: ty.map(String::from),
        attrs: attrs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        actionable: vec![format!("tag:{tag}")],
        ..Element::default()
    }
}

/// The paper's Figure 3: SplittyPie's "How much?" amount field.
fn splittypie() -> (Element, Observation) {
    let mut amount = field(
        "input",
        Some("number"),
        &[("placeholder", "Amount"), ("min", "0"), ("value", "")],
    );
    amount.label = "How much? USD".into();
    let page = Observation {
        url: "http://127.0.0.1:4200/#/new".into(),
        title: "SplittyPie".into(),
        elements: vec![amount.clone()],
        ..Observation::default()
    };
    (amount, page)
}

fn button(loc: &str, text: &str) -> Element {
    Element {
        locator: loc.into(),
        tag: "button".into(),
        text: text.into(),
        ..Element::default()
    }
}

#[test]
fn the_templates_and_the_table_load() {
    let p = Prompts::new().unwrap();
    assert_eq!(p.constraint_rows().len(), 20);
}

#[test]
fn splittypie_amount_input_prompt_with_a_screenshot() {
    let (amount, page) = splittypie();
    insta::assert_snapshot!(Prompts::get().input(&amount, &page, true));
}

#[test]
fn splittypie_amount_input_prompt_for_a_text_model() {
    let (amount, page) = splittypie();
    insta::assert_snapshot!(Prompts::get().input(&amount, &page, false));
}

#[test]
fn splittypie_element_prompt_with_a_screenshot() {
    let (amount, page) = splittypie();
    let b: Vec<Element> = ["Add participant", "Create", "Delete", "Cancel", "Back"]
        .iter()
        .enumerate()
        .map(|(i, t)| button(&format!("#b{i}"), t))
        .collect();
    let refs: Vec<&Element> = b.iter().collect();
    insta::assert_snapshot!(Prompts::get().element(&amount, "199", &refs, &page, true));
}

#[test]
fn element_prompt_for_a_text_model_lists_the_buttons() {
    let (amount, page) = splittypie();
    let b: Vec<Element> = (1..=7)
        .map(|i| button(&format!("#b{i}"), &format!("Action {i}")))
        .collect();
    let refs: Vec<&Element> = b.iter().collect();
    insta::assert_snapshot!(Prompts::get().element(&amount, "199", &refs, &page, false));
}

#[test]
fn every_constraint_row() {
    let p = Prompts::get();
    let mut out = String::new();
    for row in p.constraint_rows() {
        let ty = (row.tag == "input" && row.input_type != "*").then_some(row.input_type.as_str());
        let attrs: Vec<(&str, &str)> = match row.attribute.as_str() {
            "-" => vec![],
            "multiple" | "required" => vec![(row.attribute.as_str(), "")],
            "pattern" => vec![("pattern", "[0-9]{3}-[0-9]{4}")],
            "min" if row.input_type == "date" => vec![("min", "2024-01-01")],
            "max" if row.input_type == "date" => vec![("max", "2024-12-31")],
            "step" => vec![("step", "5")],
            a => vec![(a, "10")],
        };
        let f = field(
            &row.tag,
            ty.or(Some("text")).filter(|_| row.tag == "input"),
            &attrs,
        );
        let got = p.constraints(&f);
        out.push_str(&format!(
            "{} {} {} => {}\n",
            row.tag,
            row.input_type,
            row.attribute,
            got.join(" | ")
        ));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn a_field_with_several_constraints_lists_them_all_in_table_order() {
    let f = field(
        "input",
        Some("number"),
        &[("min", "1"), ("max", "99"), ("step", "2"), ("required", "")],
    );
    assert_eq!(
        Prompts::get().constraints(&f),
        vec![
            "maximum value of number is 99",
            "minimum value of number is 1",
            "number interval is 2 since 1",
            "a value is required",
        ]
    );
    // The step base is 0 when no min is set.
    let f = field("input", Some("number"), &[("step", "0.5")]);
    assert_eq!(
        Prompts::get().constraints(&f),
        vec!["number interval is 0.5 since 0"]
    );
}

#[test]
fn the_field_is_about_its_placeholder_name_or_id() {
    let f = |attrs: &[(&str, &str)]| about(&field("input", Some("text"), attrs));
    assert_eq!(
        f(&[("placeholder", "Amount"), ("name", "x")]),
        Some("amount".into())
    );
    assert_eq!(f(&[("name", "firstName")]), Some("first name".into()));
    assert_eq!(
        f(&[("placeholder", " "), ("id", "event_date-start")]),
        Some("event date start".into())
    );
    assert_eq!(f(&[]), None);
    assert_eq!(humanize("HTMLParser"), "htmlparser");
    assert_eq!(humanize("zip2Code"), "zip2 code");
}

#[test]
fn without_a_label_the_nearest_text_in_the_tree_is_the_local_context() {
    let mut f = field("input", Some("text"), &[]);
    f.xpath = "/html[1]/body[1]/div[2]/div[1]/input[1]".into();
    let text = |xpath: &str, t: &str| Element {
        locator: xpath.into(),
        xpath: xpath.into(),
        tag: "span".into(),
        text: t.into(),
        ..Element::default()
    };
    let page = Observation {
        elements: vec![
            text("/html[1]/body[1]/h1[1]", "Welcome"),
            text("/html[1]/body[1]/div[2]/span[1]", "Event name:"),
            text("/html[1]/body[1]/div[3]/span[1]", "Footer"),
            f.clone(),
        ],
        ..Observation::default()
    };
    assert_eq!(local_context(&f, &page), Some("Event name".into()));
    f.label = "Title *".into();
    assert_eq!(local_context(&f, &page), Some("Title".into()));
    assert_eq!(tree_distance(&["a", "b", "c"], &["a", "d"]), 3);
}

#[test]
fn page_text_is_clipped_and_a_missing_title_falls_back_to_the_url() {
    let (amount, mut page) = splittypie();
    page.title = format!("  {}  ", "Long ".repeat(40));
    let p = Prompts::get().input(&amount, &page, false);
    assert!(p.contains("entitled: Long Long"), "{p}");
    assert!(p.contains("…."), "{p}");
    page.title = String::new();
    let p = Prompts::get().input(&amount, &page, false);
    assert!(p.contains("entitled: http://127.0.0.1:4200/#/new."), "{p}");
}

/// PetClinic's owner form, reached from the search page.
fn owner_form<'a>() -> FeatureAsk<'a> {
    FeatureAsk {
        app: "PetClinic: a veterinary clinic keeps its owners, their pets and their visits",
        context: "New owner",
        action: "click button \"Add Owner\" after filling \"First Name\", \"Last Name\", \"Address\", \"City\", \"Telephone\"",
        previous: Some(("click link \"Add Owner\"", "Find owners")),
        r: 5,
    }
}

#[test]
fn autoe2e_features_prompt_for_an_action_alone() {
    let ask = FeatureAsk {
        previous: None,
        ..owner_form()
    };
    insta::assert_snapshot!(Prompts::get().features(&ask));
}

#[test]
fn autoe2e_features_prompt_after_the_previous_action() {
    insta::assert_snapshot!(Prompts::get().features(&owner_form()));
}

#[test]
fn autoe2e_same_feature_prompt() {
    insta::assert_snapshot!(Prompts::get().same_feature(
        "PetClinic: a veterinary clinic keeps its owners, their pets and their visits",
        "Register a new owner",
        "Add an owner",
    ));
}

#[test]
fn autoe2e_prompts_without_an_app_description_leave_it_out() {
    let ask = FeatureAsk {
        app: " ",
        ..owner_form()
    };
    let p = Prompts::get().features(&ask);
    assert!(!p.contains("The application is"), "{p}");
    assert!(
        p.contains("at most 5 features that these actions are part of"),
        "{p}"
    );
    let p = Prompts::get().same_feature("", "a", "b");
    assert!(!p.contains("The application is"), "{p}");
}
