//! No document points to a file the repository does not have. In the
//! README and every page of `docs/`, each relative Markdown link
//! (`[text](path)`, `[text](path#section)`, an image's `![alt](path)`)
//! names a file or folder that exists, read from the page's own folder.
//!
//! A link to another site (`https:`, `mailto:`, any scheme) or within the
//! page (`#section`) names no file here. What a fenced code block or a
//! code span shows is an example, not a link.

use std::fs;
use std::path::{Path, PathBuf};

/// The workspace's root: the tests' package is the folder `tests/` in it.
fn workspace() -> PathBuf {
    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    package
        .parent()
        .expect("the tests' package lies inside the workspace")
        .to_path_buf()
}

/// The pages checked: the README and every Markdown file of `docs/`.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("docs/ can be listed")
        .map(|entry| entry.expect("an entry of docs/").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The fence a line opens or closes (its character and length), when it
/// is one: three or more backticks or tildes, however indented.
fn fence(line: &str) -> Option<(char, usize)> {
    let line = line.trim_start();
    let mark = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let length = line.chars().take_while(|c| *c == mark).count();
    (length >= 3).then_some((mark, length))
}

/// `line` with each code span (a run of backticks, what it encloses, and
/// the same run closing it) replaced by a space. A run that no equal run
/// closes is a literal backtick and stays.
fn without_code_spans(line: &str) -> String {
    let mut kept = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        kept.push_str(&rest[..start]);
        let from_run = &rest[start..];
        let run_length = from_run.chars().take_while(|c| *c == '`').count();
        let (run, after_run) = from_run.split_at(run_length);
        match closing_run(after_run, run_length) {
            Some(end) => {
                kept.push(' ');
                rest = &after_run[end + run_length..];
            }
            None => {
                kept.push_str(run);
                rest = after_run;
            }
        }
    }
    kept.push_str(rest);
    kept
}

/// Where in `text` a run of exactly `length` backticks begins.
fn closing_run(text: &str, length: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'`' {
            at += 1;
            continue;
        }
        let run = bytes[at..].iter().take_while(|b| **b == b'`').count();
        if run == length {
            return Some(at);
        }
        at += run;
    }
    None
}

/// Each line of `page` (numbered from 1) as prose: the lines of fenced
/// code blocks left out, code spans blanked.
fn prose(page: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut open: Option<(char, usize)> = None;
    for (index, line) in page.lines().enumerate() {
        match (open, fence(line)) {
            (None, Some(opened)) => open = Some(opened),
            (Some((mark, length)), Some((closing, closing_length)))
                if closing == mark && closing_length >= length =>
            {
                open = None;
            }
            (None, None) => lines.push((index + 1, without_code_spans(line))),
            (Some(_), _) => {}
        }
    }
    lines
}

/// The target of each inline link in `line`: what follows `](` up to the
/// parenthesis that closes it, or up to a space before a title; a target
/// in angle brackets is taken whole.
fn targets(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        if let Some(bracketed) = rest.strip_prefix('<') {
            if let Some(end) = bracketed.find('>') {
                found.push(bracketed[..end].to_owned());
            }
            continue;
        }
        let mut depth = 0usize;
        let mut target = String::new();
        for c in rest.chars() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => break,
                ')' => depth -= 1,
                c if c.is_whitespace() => break,
                _ => {}
            }
            target.push(c);
        }
        found.push(target);
    }
    found
}

/// Whether `target` names a file of the repository: not empty, not a
/// section of the page itself, not a URL with a scheme.
fn names_a_file(target: &str) -> bool {
    let has_scheme = target.split_once(':').is_some_and(|(scheme, _)| {
        let mut chars = scheme.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    !target.is_empty() && !target.starts_with('#') && !has_scheme
}

/// The path `target` names: its section and query left off, its
/// percent-escapes decoded.
fn path_of(target: &str) -> String {
    let end = target.find(['#', '?']).unwrap_or(target.len());
    let raw = &target.as_bytes()[..end];
    let mut bytes = Vec::with_capacity(raw.len());
    let mut at = 0;
    while at < raw.len() {
        let escaped = (raw[at] == b'%')
            .then(|| raw.get(at + 1..at + 3))
            .flatten()
            .filter(|hex| hex.iter().all(u8::is_ascii_hexdigit))
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                bytes.push(byte);
                at += 3;
            }
            None => {
                bytes.push(raw[at]);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The links of `page` (its text `text`) that name no existing file, each
/// as "page:line: target".
fn broken_links(root: &Path, page: &Path, text: &str) -> Vec<String> {
    let folder = page.parent().unwrap_or(root);
    let shown = page
        .strip_prefix(root)
        .unwrap_or(page)
        .display()
        .to_string();
    let shown = &shown;
    prose(text)
        .into_iter()
        .flat_map(|(number, line)| {
            targets(&line)
                .into_iter()
                .filter(|target| names_a_file(target))
                .filter(|target| !folder.join(path_of(target)).exists())
                .map(move |target| format!("{shown}:{number}: {target}"))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_relative_link_names_a_file_that_exists() {
    let root = workspace();
    let pages = pages(&root);
    assert!(pages.len() > 1, "no page of docs/ was found");
    let mut broken = Vec::new();
    for page in &pages {
        let text = fs::read_to_string(page)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", page.display()));
        broken.extend(broken_links(&root, page, &text));
    }
    assert!(
        broken.is_empty(),
        "links to files the repository does not have:\n{}",
        broken.join("\n")
    );
}

#[test]
fn a_link_is_read_up_to_its_closing_parenthesis_or_its_title() {
    assert_eq!(
        targets("See [the map](ARCHITECTURE.md#code-map) and ![a shot](shots/a.png \"A\")."),
        ["ARCHITECTURE.md#code-map", "shots/a.png"]
    );
    assert_eq!(
        targets("[x](a_(b).md), [y](<with space.md>)"),
        ["a_(b).md", "with space.md"]
    );
}

#[test]
fn sites_and_sections_of_the_page_name_no_file() {
    assert!(names_a_file("docs/web.md"));
    assert!(names_a_file("../README.md#setup"));
    assert!(!names_a_file("https://example.com/a.md"));
    assert!(!names_a_file("mailto:someone@example.com"));
    assert!(!names_a_file("#bird-s-eye-view"));
    assert!(!names_a_file(""));
}

#[test]
fn a_path_leaves_its_section_off_and_is_decoded() {
    assert_eq!(path_of("operations.md#erasure"), "operations.md");
    assert_eq!(path_of("a%20b.md?plain=1"), "a b.md");
    assert_eq!(path_of("100%.md"), "100%.md");
    assert_eq!(path_of("%+1.md"), "%+1.md");
}

#[test]
fn code_is_no_link() {
    let page =
        "[real](a.md) `[span](b.md)`\n```text\n[fenced](c.md)\n```\n``x ` [y](d.md)`` [z](e.md)\n";
    let lines = prose(page);
    let found: Vec<String> = lines.iter().flat_map(|(_, line)| targets(line)).collect();
    assert_eq!(found, ["a.md", "e.md"]);
    assert_eq!(
        lines.iter().map(|(number, _)| *number).collect::<Vec<_>>(),
        [1, 5]
    );
}

#[test]
fn a_missing_file_is_reported_with_its_page_and_line() {
    let root = workspace();
    let page = root.join("docs/example.md");
    let text = "# Example\n\n[here](web.md) and [gone](no-such-page.md#part)\n";
    assert_eq!(
        broken_links(&root, &page, text),
        ["docs/example.md:3: no-such-page.md#part"]
    );
}
