//! HTML reduced to the text a reader sees.

/// Elements whose content is never shown as text.
const HIDDEN: [&str; 8] = [
    "script", "style", "noscript", "template", "svg", "math", "head", "iframe",
];

/// Elements that start a new block: their boundaries end a sentence.
const BLOCKS: [&str; 33] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "caption",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "td",
    "th",
    "tr",
    "ul",
];

/// The visible text of `html`: tags removed, the content of scripts,
/// styles and the like dropped, entities decoded, and a line break at
/// every block boundary so that headings and cells do not run together.
/// Malformed markup is read as leniently as a browser would: an unclosed
/// `<` simply ends the text.
pub fn visible_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        rest = &rest[open + 1..];
        if let Some(comment) = rest.strip_prefix("!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        // As in browsers, `<` starts a tag only before a letter, `/`, `!`
        // or `?`; otherwise it is text (`a < b`).
        let starts_tag = rest
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?'));
        if !starts_tag {
            out.push('<');
            continue;
        }
        let Some(close) = rest.find('>') else {
            rest = "";
            break;
        };
        let tag = &rest[..close];
        rest = &rest[close + 1..];
        let closing = tag.starts_with('/');
        let name = tag
            .trim_start_matches('/')
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !closing && HIDDEN.contains(&name.as_str()) && !tag.ends_with('/') {
            rest = skip_element(rest, &name);
            out.push_str("\n\n");
        } else if BLOCKS.contains(&name.as_str()) || name == "title" {
            out.push_str("\n\n");
        } else {
            out.push(' ');
        }
    }
    out.push_str(rest);
    html_escape::decode_html_entities(&out).into_owned()
}

/// What follows the end tag of `name` (case-insensitive), or nothing.
/// Scans forward once: no lower-case copy of the rest, which would make
/// many hidden elements cost quadratic time.
fn skip_element<'a>(rest: &'a str, name: &str) -> &'a str {
    let mut from = 0;
    while let Some(at) = rest[from..].find("</") {
        let tag = from + at + 2;
        let candidate = rest.as_bytes().get(tag..tag + name.len());
        if candidate.is_some_and(|c| c.eq_ignore_ascii_case(name.as_bytes())) {
            let after = &rest[tag..];
            return after.find('>').map_or("", |end| &after[end + 1..]);
        }
        from = tag;
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::visible_text;

    fn words(html: &str) -> Vec<String> {
        visible_text(html)
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn tags_go_and_text_stays() {
        assert_eq!(
            words("<p class=\"x\">Glacier <b>retreat</b></p><div>Alps</div>"),
            ["Glacier", "retreat", "Alps"]
        );
    }

    #[test]
    fn scripts_styles_and_comments_are_not_text() {
        let html = "<html><head><title>T</title><style>.a{color:red}</style></head>\
                    <body><script type=\"x\">var secret = 1;</script><!-- hidden -->\
                    <SCRIPT>more()</SCRIPT>Visible<noscript>no</noscript></body></html>";
        assert_eq!(words(html), ["Visible"]);
    }

    #[test]
    fn entities_are_decoded_and_blocks_break_lines() {
        let text = visible_text("<h1>Fish &amp; chips</h1><p>caf&eacute; &lt;3</p>");
        assert!(text.contains("Fish & chips\n\n"), "{text:?}");
        assert!(text.contains("café <3"), "{text:?}");
    }

    #[test]
    fn broken_markup_does_not_lose_or_panic() {
        assert_eq!(words("a < b and c"), ["a", "<", "b", "and", "c"]);
        assert_eq!(words("text <unclosed"), ["text"]);
        assert_eq!(words("<script>never closed"), Vec::<String>::new());
        assert_eq!(words("<!-- open comment"), Vec::<String>::new());
        assert_eq!(words("x<é>y"), ["x<é>y"]);
        assert_eq!(words("<style>a</b></STYLE >after"), ["after"]);
    }

    #[test]
    fn many_hidden_elements_are_read_in_one_pass() {
        let html = "<svg>x</svg>text ".repeat(20_000);
        assert_eq!(words(&html).len(), 20_000);
    }
}
