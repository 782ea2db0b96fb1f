//! A message's own words: what its sender wrote, without the replies it
//! quotes, the history it forwards, its signature, or the lines a phone
//! adds. Mail clients mark these in a handful of ways; each is
//! recognised here on the plain text (and, for HTML-only mail, on the
//! HTML before it is turned into text).

use mail_parser::decoders::html::html_to_text;

/// Lines that begin quoted history or a forwarded message: everything
/// from such a line on is someone else's (Outlook, Thunderbird, Gmail,
/// Apple Mail, in English and the commonest other languages).
const HISTORY_MARKERS: &[&str] = &[
    "-----original message-----",
    "----- original message -----",
    "-------- original message --------",
    "-----ursprüngliche nachricht-----",
    "-----message d'origine-----",
    "-----mensaje original-----",
    "---------- forwarded message ---------",
    "---------- forwarded message ----------",
    "-------- forwarded message --------",
    "-------- weitergeleitete nachricht --------",
    "---------- message transféré ---------",
    "begin forwarded message:",
    "anfang der weitergeleiteten nachricht:",
];

/// The verb of an attribution line ("On Mon, Ada wrote:", "Am Montag
/// schrieb Ada <ada@example.com>:", "在 2019/10/28, Ada 写道:"), by
/// language.
const ATTRIBUTION_VERBS: &[&str] = &[
    " wrote",
    " writes",
    " schrieb",
    " a écrit",
    " escribió",
    " ha scritto",
    " schreef",
    " skrev",
    " napisał",
    "写道",
    "寫道",
];

/// The header fields of a quoted message in Outlook's style
/// (`From: ... Sent: ... To: ... Subject: ...`), in English and German.
const OUTLOOK_FIELDS: &[&str] = &[
    "sent:",
    "date:",
    "to:",
    "subject:",
    "cc:",
    "gesendet:",
    "an:",
    "betreff:",
    "envoyé :",
    "objet :",
];

/// Lines a phone or a mail app adds under a message.
const APP_FOOTERS: &[&str] = &[
    "sent from my ",
    "sent from mail for windows",
    "get outlook for ",
    "von meinem iphone gesendet",
    "envoyé de mon ",
];

/// What the sender wrote in a plain-text body: quoted lines (`>`), the
/// attribution line above them, quoted or forwarded history below an
/// Outlook, Thunderbird, Gmail or Apple Mail marker, the signature (after
/// a `-- ` line) and phone footers left out; blank lines squeezed.
pub fn own_words(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    let mut kept: Vec<&str> = Vec::new();
    let mut n = 0;
    while n < lines.len() {
        let line = lines[n];
        let trimmed = line.trim();
        let lower = trimmed.to_lowercase();
        if line == "-- " || trimmed == "--" {
            break;
        }
        if HISTORY_MARKERS.iter().any(|m| lower.starts_with(m))
            || is_outlook_rule(trimmed, lines.get(n + 1).copied())
            || is_outlook_header(&lines[n..])
        {
            break;
        }
        if trimmed.starts_with('>') {
            n += 1;
            continue;
        }
        if let Some(length) = attribution(&lines[n..]) {
            n += length;
            continue;
        }
        if APP_FOOTERS.iter().any(|f| lower.starts_with(f)) && trimmed.len() < 80 {
            n += 1;
            continue;
        }
        kept.push(line.trim_end());
        n += 1;
    }
    squeeze(&kept)
}

/// Whether `line` is Outlook's rule of underscores above a quoted
/// message's header (`____` then `From:`).
fn is_outlook_rule(line: &str, next: Option<&str>) -> bool {
    line.len() >= 20
        && line.chars().all(|c| c == '_')
        && next.is_some_and(|next| next.trim().to_lowercase().starts_with("from:"))
}

/// Whether `lines` begin with a quoted message's header in Outlook's
/// style: `From:` then, within the next four lines, two more of its
/// fields.
fn is_outlook_header(lines: &[&str]) -> bool {
    let Some(first) = lines.first() else {
        return false;
    };
    let first = first.trim().to_lowercase();
    if !(first.starts_with("from:") || first.starts_with("von:") || first.starts_with("de :")) {
        return false;
    }
    let fields = lines
        .iter()
        .skip(1)
        .take(4)
        .filter(|line| {
            let line = line.trim().to_lowercase();
            OUTLOOK_FIELDS.iter().any(|f| line.starts_with(f))
        })
        .count();
    fields >= 2
}

/// How many lines an attribution ("On Mon, 2 Feb 2026, Ada wrote:", on
/// one line or wrapped over two) at the start of `lines` takes, when it
/// is followed by quoted lines or nothing.
fn attribution(lines: &[&str]) -> Option<usize> {
    let ends = |text: &str| {
        let text = text.trim().to_lowercase();
        text.ends_with(':') && ATTRIBUTION_VERBS.iter().any(|verb| text.contains(verb))
    };
    let quoted_next = |from: usize| {
        lines
            .iter()
            .skip(from)
            .find(|line| !line.trim().is_empty())
            .is_none_or(|line| line.trim_start().starts_with('>'))
    };
    let first = *lines.first()?;
    if ends(first) && quoted_next(1) {
        return Some(1);
    }
    let second = *lines.get(1)?;
    let joined = format!("{} {}", first.trim(), second.trim());
    (!first.trim().is_empty() && !second.trim().is_empty() && ends(&joined) && quoted_next(2))
        .then_some(2)
}

/// `lines` joined, without blank lines at either end or more than one
/// blank line in a row.
pub(super) fn squeeze(lines: &[&str]) -> String {
    let mut out = String::new();
    let mut blank = false;
    for line in lines {
        if line.trim().is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if blank {
            out.push_str("\n\n");
        } else if !out.is_empty() {
            out.push('\n');
        }
        blank = false;
        out.push_str(line);
    }
    out
}

/// Where HTML mail clients begin quoted or forwarded history, or a
/// signature: everything from the first of these on is cut.
const HTML_HISTORY_MARKERS: &[&str] = &[
    "<div class=\"gmail_quote",
    "<div class=\"gmail_signature",
    "<div data-smartmail=\"gmail_signature",
    "<div id=\"divrplyfwdmsg",
    "<div id=\"appendonsend",
    "<hr id=\"replysplit",
    "<div class=\"moz-cite-prefix",
    "<div class=\"moz-forward-container",
    "<div class=\"moz-signature",
    "<pre class=\"moz-signature",
    "<div id=\"signature",
    "<div class=\"yahoo_quoted",
    "<div name=\"messagereplysection",
    "border:none;border-top:solid",
    "-----original message-----",
];

/// The text of an HTML body, its quoted history, forwarded messages and
/// signature cut away first (the markers of Gmail, Outlook, Thunderbird,
/// Apple Mail and Yahoo, and every `<blockquote>`), then its own words as
/// [`own_words`] finds them. Turned into text here rather than by the
/// server: an Outlook body's style sheet alone can be longer than the
/// text an upload keeps.
pub fn own_html_words(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let end = HTML_HISTORY_MARKERS
        .iter()
        .filter_map(|marker| lower.find(marker))
        .map(|at| tag_start(&lower, at))
        .min()
        .unwrap_or(html.len());
    let kept = without_blockquotes(&html[..end], &lower[..end]);
    own_words(&html_to_text(&kept))
}

/// Where the tag that holds byte `at` of `html` begins (the `<` before
/// it, unless a `>` comes first), so that a cut never leaves half a tag.
fn tag_start(html: &str, at: usize) -> usize {
    match html[..at].rfind(['<', '>']) {
        Some(open) if html.as_bytes()[open] == b'<' => open,
        _ => at,
    }
}

/// `html` without its `<blockquote>` elements, nested ones included
/// (`lower` is `html` in ASCII lower case, the same length).
fn without_blockquotes(html: &str, lower: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut depth = 0usize;
    let mut at = 0;
    while at < html.len() {
        let open = lower[at..].find("<blockquote").map(|i| i + at);
        let close = lower[at..].find("</blockquote").map(|i| i + at);
        let next = match (open, close) {
            (Some(o), Some(c)) => Some((o.min(c), o < c)),
            (Some(o), None) => Some((o, true)),
            (None, Some(c)) => Some((c, false)),
            (None, None) => None,
        };
        let Some((tag, opens)) = next else {
            if depth == 0 {
                out.push_str(&html[at..]);
            }
            break;
        };
        if depth == 0 {
            out.push_str(&html[at..tag]);
        }
        let after = lower[tag..].find('>').map_or(html.len(), |i| tag + i + 1);
        if opens {
            depth += 1;
        } else {
            depth = depth.saturating_sub(1);
        }
        at = after;
    }
    out
}

/// A subject without its reply and forward prefixes (`Re:`, `Fwd:`,
/// `AW:`, `[list]` tags ...), and whether it was a forward.
pub fn bare_subject(subject: &str) -> (String, bool) {
    const REPLY: &[&str] = &["re", "aw", "sv", "vs", "antw", "rif", "odp", "r"];
    const FORWARD: &[&str] = &["fwd", "fw", "wg", "tr", "rv", "enc", "doorst", "i"];
    let mut rest = subject.trim();
    let mut forwarded = false;
    loop {
        if let Some(tagged) = rest.strip_prefix('[') {
            if let Some(end) = tagged.find(']').filter(|end| *end <= 40) {
                rest = tagged[end + 1..].trim_start();
                continue;
            }
        }
        let Some((word, after)) = rest.split_once(':') else {
            break;
        };
        let word = word.trim().to_lowercase();
        let word = word
            .split_once('[')
            .map_or(word.as_str(), |(w, _)| w)
            .trim();
        if REPLY.contains(&word) {
            rest = after.trim_start();
        } else if FORWARD.contains(&word) {
            forwarded = true;
            rest = after.trim_start();
        } else {
            break;
        }
    }
    (rest.to_owned(), forwarded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bottom_posted_reply_keeps_its_answers_between_the_quotes() {
        let body = "On Mon, 2 Feb 2026 at 10:00, Grace Hopper <grace@example.com> wrote:\n\
                    > Does the compiler read record layouts?\n\
                    \n\
                    Yes: the data division describes each record.\n\
                    \n\
                    > And the linker?\n\
                    \n\
                    It resolves the calls between programs.\n\
                    \n\
                    -- \n\
                    Ada Lovelace\n\
                    Analytical Engines Ltd";
        assert_eq!(
            own_words(body),
            "Yes: the data division describes each record.\n\nIt resolves the calls between programs."
        );
    }

    #[test]
    fn a_top_posted_reply_loses_the_history_below_it() {
        let gmail = "The punched cards drive the loom.\r\n\r\nOn Mon, Feb 2, 2026 at 10:00 AM Grace Hopper <\r\ngrace@example.com> wrote:\r\n\r\n> How are the looms driven?\r\n";
        assert_eq!(own_words(gmail), "The punched cards drive the loom.");
        let outlook = "Bernoulli numbers are in table 3.\n\n\
                       Sent from my iPhone\n\n\
                       ________________________________\n\
                       From: Grace Hopper <grace@example.com>\n\
                       Sent: Monday, February 2, 2026 10:00 AM\n\
                       To: Ada Lovelace\n\
                       Subject: Tables\n\n\
                       Where are the Bernoulli numbers?";
        assert_eq!(own_words(outlook), "Bernoulli numbers are in table 3.");
        let bare_outlook = "See the appendix.\n\nFrom: Grace Hopper\nSent: Monday\nTo: Ada\nSubject: x\n\nOld text";
        assert_eq!(own_words(bare_outlook), "See the appendix.");
        let original =
            "Agreed.\n\n-----Original Message-----\nFrom: Grace\nPlease agree to the plan.";
        assert_eq!(own_words(original), "Agreed.");
        let german =
            "Danke!\n\nAm 02.02.2026 um 10:00 schrieb Grace Hopper <grace@example.com>:\n> Hallo";
        assert_eq!(own_words(german), "Danke!");
        let chinese =
            "Thanks, applied.\n\n在 2019/10/28 上午5:00, Greg Kroah-Hartman 写道:\n> Looks good";
        assert_eq!(own_words(chinese), "Thanks, applied.");
    }

    #[test]
    fn forwarded_history_is_not_the_forwarders() {
        let forward = "Have a look at this.\n\n---------- Forwarded message ---------\nFrom: Grace Hopper <grace@example.com>\nDate: Mon, Feb 2, 2026\nSubject: COBOL\n\nRecord layouts are described in the data division.";
        assert_eq!(own_words(forward), "Have a look at this.");
        let apple = "FYI\n\nBegin forwarded message:\n\nFrom: Grace\nSubject: COBOL";
        assert_eq!(own_words(apple), "FYI");
    }

    #[test]
    fn a_line_that_only_looks_like_an_attribution_stays() {
        let body = "Lovelace wrote:\nthe engine might compose music.\n\nThat is what she wrote.";
        assert_eq!(own_words(body), body);
        // "From:" without the rest of a header is the sender's own text.
        let body = "From: the start, the engine was meant to be general.";
        assert_eq!(own_words(body), body);
    }

    #[test]
    fn html_mail_loses_its_quotes_signature_and_style() {
        let gmail = "<div dir=\"ltr\">The loom reads <b>punched cards</b>.<br></div>\
                     <br><div class=\"gmail_quote gmail_quote_container\"><div dir=\"ltr\" class=\"gmail_attr\">On Mon, Grace wrote:<br></div>\
                     <blockquote class=\"gmail_quote\">How does the loom work?</blockquote></div>";
        assert_eq!(own_html_words(gmail), "The loom reads punched cards.");
        let outlook = "<html><head><style>p.MsoNormal{margin:0cm;font-family:Calibri}</style></head>\
                       <body><p class=MsoNormal>Table 3 has the Bernoulli numbers.</p>\
                       <div style='border:none;border-top:solid #E1E1E1 1.0pt'><p><b>From:</b> Grace</p></div>\
                       <p>Where are they?</p></body></html>";
        assert_eq!(
            own_html_words(outlook),
            "Table 3 has the Bernoulli numbers."
        );
        let inline = "<p>Yes.</p><blockquote type=\"x\"><p>Quoted <blockquote>deeper</blockquote> still quoted</p></blockquote><p>And the linker resolves calls.</p>";
        assert_eq!(
            own_html_words(inline),
            "Yes.\nAnd the linker resolves calls."
        );
    }

    #[test]
    fn subjects_lose_reply_and_forward_prefixes() {
        assert_eq!(
            bare_subject("Re: AW: [analytical-l] Bernoulli numbers"),
            ("Bernoulli numbers".to_owned(), false)
        );
        assert_eq!(
            bare_subject("Fwd: Re: COBOL records"),
            ("COBOL records".to_owned(), true)
        );
        assert_eq!(
            bare_subject("Note: ratio of gears"),
            ("Note: ratio of gears".to_owned(), false)
        );
        assert_eq!(bare_subject("RE[2]: gears"), ("gears".to_owned(), false));
    }
}
