//! Wikitext as a reader of the page sees it, one paragraph, heading, list
//! item or table cell a line: links as their labels, templates, comments,
//! references and formulas left out, tables, lists and headings without
//! their markup, bold and italics plain, HTML entities decoded.
//!
//! A revision's text is compared with its parent's in this form, so that
//! an edit of markup alone (a template's parameter, a reference) adds
//! nothing a reader would learn from.

/// Elements left out with what they hold.
const HIDDEN: [&str; 11] = [
    "ref",
    "references",
    "gallery",
    "math",
    "chem",
    "score",
    "timeline",
    "imagemap",
    "templatedata",
    "mapframe",
    "graph",
];

/// Link namespaces whose links are not words of the text (an image, the
/// page's category, a media file).
const UNREAD_NAMESPACES: [&str; 4] = ["file", "image", "category", "media"];

/// The readable lines of `wikitext`, none empty.
pub fn readable(wikitext: &str) -> Vec<String> {
    let shown = without_hidden(wikitext);
    let mut lines = Vec::new();
    for raw in shown.lines() {
        line(raw, &mut lines);
    }
    lines
}

/// `text` without comments, templates (`{{...}}`, nested, and `{{{...}}}`
/// parameters) and the [`HIDDEN`] elements.
fn without_hidden(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut depth = 0usize;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("<!--") {
            rest = rest.find("-->").map_or("", |end| &rest[end + 3..]);
            continue;
        }
        if depth == 0 && c == '<' {
            if let Some(after) = hidden_element(rest) {
                rest = after;
                continue;
            }
        }
        if let Some(after) = rest.strip_prefix("{{{").or_else(|| rest.strip_prefix("{{")) {
            depth += 1;
            rest = after;
            continue;
        }
        if depth > 0 {
            if let Some(after) = rest.strip_prefix("}}}").or_else(|| rest.strip_prefix("}}")) {
                depth -= 1;
                rest = after;
                continue;
            }
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The text after a [`HIDDEN`] element starting `text` (`<ref>...</ref>`
/// or `<ref name="x" />`), if one does.
fn hidden_element(text: &str) -> Option<&str> {
    let name_len = text[1..]
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(text.len() - 1);
    let name = &text[1..1 + name_len];
    if !HIDDEN.iter().any(|h| h.eq_ignore_ascii_case(name)) {
        return None;
    }
    let after_name = &text[1 + name_len..];
    if !after_name.starts_with(|c: char| c == '>' || c == '/' || c.is_whitespace()) {
        return None;
    }
    let open_end = after_name.find('>')?;
    let after_open = &after_name[open_end + 1..];
    if after_name[..open_end].trim_end().ends_with('/') {
        return Some(after_open);
    }
    let closing = format!("</{name}");
    let close = find_ignoring_case(after_open, &closing)?;
    let after_close = &after_open[close..];
    Some(
        after_close
            .find('>')
            .map_or("", |end| &after_close[end + 1..]),
    )
}

/// Where `needle` (ASCII) first is in `hay`, in any case.
fn find_ignoring_case(hay: &str, needle: &str) -> Option<usize> {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// The readable lines of one line of wikitext.
fn line(raw: &str, lines: &mut Vec<String>) {
    let t = raw.trim();
    let skipped = ["{|", "|}", "|-", "----"];
    if t.is_empty()
        || skipped.iter().any(|s| t.starts_with(s))
        || t.get(..9)
            .is_some_and(|s| s.eq_ignore_ascii_case("#redirect"))
    {
        return;
    }
    let mut push = |text: &str| {
        let text = inline(text);
        if !text.is_empty() {
            lines.push(text);
        }
    };
    if let Some(caption) = t.strip_prefix("|+") {
        push(cell(caption));
        return;
    }
    if t.starts_with(['|', '!']) {
        for cells in t[1..].split("||") {
            for one in cells.split("!!") {
                push(cell(one));
            }
        }
        return;
    }
    if t.len() > 1 && t.starts_with('=') && t.ends_with('=') {
        push(t.trim_matches('='));
        return;
    }
    push(t.trim_start_matches(['*', '#', ':', ';']));
}

/// A table cell's content: after its attributes (`style="..." | text`),
/// when it has any.
fn cell(text: &str) -> &str {
    let mut depth = 0usize;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'[' if bytes.get(i + 1) == Some(&b'[') => {
                depth += 1;
                i += 1;
            }
            b']' if bytes.get(i + 1) == Some(&b']') => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'|' if depth == 0 => return &text[i + 1..],
            _ => {}
        }
        i += 1;
    }
    text
}

/// One line's text without its inline markup, its spaces collapsed.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some(inner) = rest.strip_prefix("[[") {
            match closing_brackets(inner) {
                Some(end) => {
                    out.push_str(&link(&inner[..end]));
                    rest = &inner[end + 2..];
                }
                None => rest = inner,
            }
            continue;
        }
        if c == '[' {
            if let Some((label, after)) = external_link(rest) {
                out.push_str(&inline(label));
                rest = after;
                continue;
            }
        }
        if c == '<' {
            if let Some((name, after)) = tag(rest) {
                if name.eq_ignore_ascii_case("br") {
                    out.push(' ');
                }
                rest = after;
                continue;
            }
        }
        if rest.starts_with("''") {
            rest = rest.trim_start_matches('\'');
            continue;
        }
        if let Some(after) = magic_word(rest) {
            rest = after;
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    html_escape::decode_html_entities(&out)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where the `]]` closing a link whose inside starts `text` is, links
/// inside it (an image's caption) counted.
fn closing_brackets(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'[' && bytes[i + 1] == b'[' {
            depth += 1;
            i += 2;
        } else if bytes[i] == b']' && bytes[i + 1] == b']' {
            if depth == 0 {
                return Some(i);
            }
            depth -= 1;
            i += 2;
        } else {
            i += 1;
        }
    }
    None
}

/// What a reader sees of `[[inner]]`: its label, else its target; nothing
/// for an image, a category or a link to the page in another language.
fn link(inner: &str) -> String {
    let (target, label) = match inner.split_once('|') {
        Some((target, label)) => (target.trim(), Some(label)),
        None => (inner.trim(), None),
    };
    if let Some((prefix, _)) = target.split_once(':') {
        let prefix = prefix.trim().to_ascii_lowercase();
        let language =
            (2..=3).contains(&prefix.len()) && prefix.chars().all(|c| c.is_ascii_lowercase());
        if UNREAD_NAMESPACES.contains(&prefix.as_str()) || language {
            return String::new();
        }
    }
    match label {
        Some(label) if !label.trim().is_empty() => inline(label),
        _ => target.trim_start_matches(':').to_owned(),
    }
}

/// `[https://example.org a label]`: the label and the text after; an
/// external link without a label is nothing.
fn external_link(text: &str) -> Option<(&str, &str)> {
    let inner = &text[1..];
    let schemes = ["http://", "https://", "ftp://", "//", "mailto:"];
    if !schemes.iter().any(|s| {
        inner
            .get(..s.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(s))
    }) {
        return None;
    }
    let end = inner.find(']')?;
    let label = inner[..end]
        .split_once(char::is_whitespace)
        .map_or("", |(_, label)| label);
    Some((label, &inner[end + 1..]))
}

/// An HTML tag starting `text` (`<span class="x">`, `</small>`, `<br/>`):
/// its name and the text after it.
fn tag(text: &str) -> Option<(&str, &str)> {
    let inner = text[1..].strip_prefix('/').unwrap_or(&text[1..]);
    if !inner.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let end = inner.find('>')?;
    if inner[..end].contains('<') {
        return None;
    }
    let name_end = inner
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(end);
    Some((&inner[..name_end], &inner[end + 1..]))
}

/// A behaviour switch (`__TOC__`, `__NOTOC__`) starting `text`: the text
/// after it.
fn magic_word(text: &str) -> Option<&str> {
    let inner = text.strip_prefix("__")?;
    let end = inner.find("__")?;
    let word = &inner[..end];
    (!word.is_empty() && word.chars().all(|c| c.is_ascii_uppercase())).then(|| &inner[end + 2..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_read_as_their_labels_and_images_categories_and_languages_as_nothing() {
        assert_eq!(
            readable("The [[Analytical Engine|engine]] reads [[punched card]]s; see [[:Category:Looms]]."),
            ["The engine reads punched cards; see Category:Looms."]
        );
        assert_eq!(
            readable("[[File:Loom.jpg|thumb|A [[Jacquard loom]] at work]]Looms weave.\n[[Category:Looms]]\n[[de:Webstuhl]]"),
            ["Looms weave."]
        );
        assert_eq!(
            readable("See [https://example.org the museum] or [https://example.org]."),
            ["See the museum or ."]
        );
    }

    #[test]
    fn templates_references_and_comments_are_left_out() {
        assert_eq!(
            readable(
                "{{Infobox machine\n| name = Engine\n| inventor = {{nowrap|Charles Babbage}}\n}}\n\
                 The engine computes tables.<ref name=\"b\">Babbage, 1864.</ref> It was never built.<ref name=\"b\" />\n\
                 <!-- a note\nto editors -->\n== References ==\n<references />\n{{Reflist}}"
            ),
            ["The engine computes tables. It was never built.", "References"]
        );
        assert_eq!(
            readable("Area <math>\\pi r^2</math> of a circle"),
            ["Area of a circle"]
        );
    }

    #[test]
    fn tables_lists_headings_and_formatting_lose_their_markup() {
        assert_eq!(
            readable(
                "=== Brewing ===\n* '''Espresso''': ''fine'' grind\n# Pour&nbsp;over\n\
                 {| class=\"wikitable\"\n|+ Grinds\n|-\n! Method !! Grind\n|-\n\
                 | style=\"color:red\" | [[French press]] || coarse\n|}\n__NOTOC__\n#REDIRECT [[Coffee]]\n----"
            ),
            [
                "Brewing",
                "Espresso: fine grind",
                "Pour over",
                "Grinds",
                "Method",
                "Grind",
                "French press",
                "coarse",
            ]
        );
        assert_eq!(
            readable("Water at <b>93&nbsp;°C</b>,<br/>not boiling; 3 < 4"),
            ["Water at 93 °C, not boiling; 3 < 4"]
        );
    }
}
