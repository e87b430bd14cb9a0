use memberlist::{initials, pad, row, truncate};

#[test]
fn short_text_is_unchanged() {
    assert_eq!(truncate("Ada", 12), "Ada");
    assert_eq!(truncate("Ada Lovelace", 12), "Ada Lovelace");
}

#[test]
fn long_text_ends_with_an_ellipsis() {
    assert_eq!(truncate("Grace Brewster Hopper", 12), "Grace Brews…");
    assert_eq!(truncate("Grace", 0), "");
}

#[test]
fn pads_to_the_width() {
    assert_eq!(pad("Ada", 5), "Ada  ");
    assert_eq!(pad("Zoë", 5), "Zoë  ");
    assert_eq!(pad("Lovelace", 5), "Lovelace");
}

#[test]
fn initials_of_a_name() {
    assert_eq!(initials("Ada King Lovelace"), "AKL");
    assert_eq!(initials("élodie durand"), "ÉD");
}

#[test]
fn truncate_counts_characters_not_bytes() {
    assert_eq!(truncate("Zoë Saldaña-Ramírez", 12), "Zoë Saldaña…");
    assert_eq!(truncate("Zoë Ørsted", 10), "Zoë Ørsted");
    assert_eq!(truncate("東京都渋谷区神南", 4), "東京都…");
}

#[test]
fn rows_line_up_with_accented_names() {
    assert_eq!(row("Zoë Saldaña-Ramírez", 12), "Zoë Saldaña… ZS");
    assert_eq!(row("José Ortega", 12), "José Ortega  JO");
}
