//! One source file read as the module check needs it: the modules it
//! declares, the paths by which it may reach other modules of its crate, and
//! the names its module defines or imports, by which a path through it is
//! followed to where the item it names is defined.
//! Comments, string and character literals are skipped, so a doc comment
//! or a message naming `crate::x` is no dependency, and so are the items
//! compiled only for tests (`#[cfg(test)]`): a test module may use its
//! parent.

/// A module the file declares with `mod name;`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    pub name: String,
    /// Declared under `#[cfg(test)]`.
    pub test: bool,
}

/// A path that starts with `crate`, `self`, `super` or the name of a module
/// the file declares, as written (a grouped import gives one per leaf).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathUse {
    pub segments: Vec<String>,
    /// How many inline modules (`mod x { ... }`) enclose the path: its first
    /// `super`s, or its `self`, leave those before the file's module.
    pub inline_depth: usize,
    pub line: usize,
}

/// A name that a `use` item of the file's own module brings into it, with
/// any visibility: a re-export (`pub use child::Item`) and a plain import
/// alike name an item defined elsewhere, never one of this module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The path imported, as written (`child::Item`, `crate::a::b`); for a
    /// glob, the path before its `::*`.
    pub path: Vec<String>,
    /// The name it is known by here: its last segment or its `as` alias;
    /// `None` for a glob, which brings every name of its path.
    pub name: Option<String>,
}

/// What [`scan`] found in one file.
#[derive(Debug, Default)]
pub struct FileScan {
    pub declarations: Vec<Declaration>,
    pub paths: Vec<PathUse>,
    /// The items the file's module defines at its top level (functions,
    /// types, traits, constants, statics, `macro_rules!` macros and inline
    /// modules, whose contents are part of the file).
    pub definitions: Vec<String>,
    /// The names its top-level `use` items bring in.
    pub imports: Vec<Import>,
}

/// Reads one file's declarations and paths.
pub fn scan(source: &str) -> FileScan {
    let (tokens, mut declarations) = without_test_items(tokenize(source));
    let (definitions, imports) = top_level_names(&tokens);
    let mut candidates = Vec::new();
    let mut braces: Vec<bool> = Vec::new();
    let mut inline_depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].kind {
            Kind::Ident(word) if word == "mod" => {
                if let (Some(Kind::Ident(name)), Some(next)) =
                    (kind(&tokens, i + 1), kind(&tokens, i + 2))
                {
                    if *next == Kind::Punct(';') {
                        declarations.push(Declaration {
                            name: name.clone(),
                            test: false,
                        });
                        i += 3;
                        continue;
                    }
                    if *next == Kind::Punct('{') {
                        braces.push(true);
                        inline_depth += 1;
                        i += 3;
                        continue;
                    }
                }
            }
            Kind::Punct('{') => braces.push(false),
            Kind::Punct('}') => inline_depth -= usize::from(braces.pop() == Some(true)),
            Kind::Ident(_) if starts_path(&tokens, i) => {
                let (paths, end) = path_tree(&tokens, i);
                let line = tokens[i].line;
                for segments in paths {
                    candidates.push(PathUse {
                        segments,
                        inline_depth,
                        line,
                    });
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let children: Vec<&str> = declarations
        .iter()
        .filter(|d| !d.test)
        .map(|d| d.name.as_str())
        .collect();
    let paths = candidates
        .into_iter()
        .filter(|p| match p.segments.first().map(String::as_str) {
            Some("crate" | "self" | "super") => true,
            // A bare name reaches a declared child only from the file's own
            // module, not from inside an inline module.
            Some(name) => p.inline_depth == 0 && children.contains(&name),
            None => false,
        })
        .collect();
    FileScan {
        declarations,
        paths,
        definitions,
        imports,
    }
}

/// The items defined and the names imported at the file's top level, outside
/// every brace: what is inside a function, an `impl`, a trait or an inline
/// module is not in the file's module's own namespace.
fn top_level_names(tokens: &[Token]) -> (Vec<String>, Vec<Import>) {
    let mut definitions = Vec::new();
    let mut imports = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].kind {
            Kind::Punct('{') => {
                i = closing(tokens, i).map_or(tokens.len(), |close| close + 1);
                continue;
            }
            Kind::Ident(word) if starts_item(tokens, i) => match word.as_str() {
                "use" => {
                    i = use_tree(tokens, i + 1, Vec::new(), &mut imports);
                    continue;
                }
                "fn" | "struct" | "enum" | "union" | "trait" | "const" | "static" | "type"
                | "mod" => {
                    let mut at = i + 1;
                    if kind(tokens, at) == Some(&Kind::Ident("mut".to_owned())) {
                        at += 1;
                    }
                    if let Some(Kind::Ident(name)) = kind(tokens, at) {
                        definitions.push(name.clone());
                    }
                }
                "macro_rules" if is_punct(tokens, i + 1, '!') => {
                    if let Some(Kind::Ident(name)) = kind(tokens, i + 2) {
                        definitions.push(name.clone());
                    }
                }
                _ => {}
            },
            _ => {}
        }
        i += 1;
    }
    // `const _` and `use Trait as _` name nothing.
    definitions.retain(|name| name != "_");
    imports.retain(|import| import.name.as_deref() != Some("_"));
    (definitions, imports)
}

/// Whether the word at `i` can begin an item's keywords: it follows the end
/// of an item or an attribute, a visibility or another of an item's
/// qualifiers (`pub(crate) const unsafe fn`, `extern "C" fn`), not a `<` or
/// a `,` of generics (`<const N: usize>`).
fn starts_item(tokens: &[Token], i: usize) -> bool {
    let Some(previous) = i.checked_sub(1).and_then(|p| kind(tokens, p)) else {
        return true;
    };
    match previous {
        Kind::Punct(';' | '}' | ']' | ')') | Kind::Literal => true,
        Kind::Ident(word) => matches!(
            word.as_str(),
            "pub" | "unsafe" | "async" | "const" | "extern" | "default"
        ),
        _ => false,
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Ident(String),
    PathSep,
    Punct(char),
    Literal,
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    line: usize,
}

fn kind(tokens: &[Token], i: usize) -> Option<&Kind> {
    tokens.get(i).map(|t| &t.kind)
}

fn is_punct(tokens: &[Token], i: usize, c: char) -> bool {
    kind(tokens, i) == Some(&Kind::Punct(c))
}

/// Splits source into identifiers, `::` and single punctuation characters;
/// comments and the contents of literals produce nothing that could be read
/// as a path or a brace.
fn tokenize(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        let mut push = |kind: Kind| {
            tokens.push(Token {
                kind,
                line: start_line,
            })
        };
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&chars, i, &mut line);
            push(Kind::Literal);
        } else if let Some(end) = skip_prefixed_literal(&chars, i, &mut line) {
            i = end;
            push(Kind::Literal);
        } else if c == '\'' {
            if at(i + 1) == '\\' {
                i += 3;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
                push(Kind::Literal);
            } else if at(i + 2) == '\'' {
                i += 3;
                push(Kind::Literal);
            } else {
                // A lifetime or a label.
                i += 1;
                while is_ident_char(at(i)) {
                    i += 1;
                }
            }
        } else if c == 'r' && at(i + 1) == '#' && is_ident_start(at(i + 2)) {
            let start = i + 2;
            i = start;
            while is_ident_char(at(i)) {
                i += 1;
            }
            push(Kind::Ident(chars[start..i].iter().collect()));
        } else if is_ident_start(c) {
            let start = i;
            while is_ident_char(at(i)) {
                i += 1;
            }
            push(Kind::Ident(chars[start..i].iter().collect()));
        } else if c.is_ascii_digit() {
            while is_ident_char(at(i)) {
                i += 1;
            }
            push(Kind::Literal);
        } else if c == ':' && at(i + 1) == ':' {
            i += 2;
            push(Kind::PathSep);
        } else {
            i += 1;
            push(Kind::Punct(c));
        }
    }
    tokens
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Skips a `"..."` string starting at `i`; returns the index after it.
fn skip_string(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    i += 1;
    while i < chars.len() && chars[i] != '"' {
        if chars[i] == '\\' {
            i += 1;
        }
        if chars.get(i) == Some(&'\n') {
            *line += 1;
        }
        i += 1;
    }
    i + 1
}

/// Skips a byte, C or raw literal (`b'x'`, `b"..."`, `c"..."`, `r#"..."#`,
/// `br"..."`, `cr"..."`) starting at `i`, if one starts there.
fn skip_prefixed_literal(chars: &[char], i: usize, line: &mut usize) -> Option<usize> {
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    if i > 0 && is_ident_char(chars[i - 1]) {
        return None;
    }
    let mut j = i;
    if matches!(at(j), 'b' | 'c') {
        if at(j) == 'b' && at(j + 1) == '\'' {
            let mut k = j + 2;
            if at(k) == '\\' {
                k += 1;
            }
            k += 1;
            while k < chars.len() && chars[k] != '\'' {
                k += 1;
            }
            return Some(k + 1);
        }
        if at(j + 1) == '"' {
            return Some(skip_string(chars, j + 1, line));
        }
        j += 1;
    }
    if at(j) != 'r' {
        return None;
    }
    let mut hashes = 0;
    let mut k = j + 1;
    while at(k) == '#' {
        hashes += 1;
        k += 1;
    }
    if at(k) != '"' {
        return None;
    }
    k += 1;
    while k < chars.len() {
        if chars[k] == '"' && (1..=hashes).all(|h| at(k + h) == '#') {
            return Some(k + 1 + hashes);
        }
        if chars[k] == '\n' {
            *line += 1;
        }
        k += 1;
    }
    Some(k)
}

/// The tokens without the items compiled only for tests, and the modules
/// declared among those (`#[cfg(test)] mod tests;`).
fn without_test_items(tokens: Vec<Token>) -> (Vec<Token>, Vec<Declaration>) {
    let mut kept = Vec::with_capacity(tokens.len());
    let mut declarations = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let Some(after) = test_attribute_end(&tokens, i) else {
            kept.push(tokens[i].clone());
            i += 1;
            continue;
        };
        let mut start = after;
        while let Some(end) = attribute_end(&tokens, start) {
            start = end;
        }
        let end = item_end(&tokens, start);
        if let Some(name) = declared_module(&tokens[start..end]) {
            declarations.push(Declaration { name, test: true });
        }
        i = end;
    }
    (kept, declarations)
}

/// The index after `#[...]` starting at `i`.
fn attribute_end(tokens: &[Token], i: usize) -> Option<usize> {
    if !is_punct(tokens, i, '#') || !is_punct(tokens, i + 1, '[') {
        return None;
    }
    closing(tokens, i + 1).map(|close| close + 1)
}

/// The index after a `#[cfg(test)]` (or `#[cfg(all(test, ...))]`) starting
/// at `i`.
fn test_attribute_end(tokens: &[Token], i: usize) -> Option<usize> {
    let end = attribute_end(tokens, i)?;
    let inside: Vec<&Kind> = tokens[i + 2..end - 1].iter().map(|t| &t.kind).collect();
    let word = |w: &str| Kind::Ident(w.to_owned());
    let test_only = match inside.as_slice() {
        [cfg, open, test, close] => {
            **cfg == word("cfg")
                && **open == Kind::Punct('(')
                && **test == word("test")
                && **close == Kind::Punct(')')
        }
        [cfg, open, all, open2, test, ..] => {
            **cfg == word("cfg")
                && **open == Kind::Punct('(')
                && **all == word("all")
                && **open2 == Kind::Punct('(')
                && **test == word("test")
        }
        _ => false,
    };
    test_only.then_some(end)
}

/// The index of the bracket that closes the one at `open`.
fn closing(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token.kind {
            Kind::Punct('(' | '[' | '{') => depth += 1,
            Kind::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The index after the item, field or statement starting at `start`: after
/// its `;` or its braced body, or at the `,` or closing bracket that ends a
/// field or an argument.
fn item_end(tokens: &[Token], start: usize) -> usize {
    let mut angles = 0usize;
    let mut i = start;
    while i < tokens.len() {
        match tokens[i].kind {
            Kind::Punct(';') => return i + 1,
            Kind::Punct('{') => return closing(tokens, i).map_or(tokens.len(), |c| c + 1),
            Kind::Punct('(' | '[') => match closing(tokens, i) {
                Some(close) => i = close,
                None => return tokens.len(),
            },
            Kind::Punct(')' | ']' | '}') => return i,
            Kind::Punct('<') => angles += 1,
            // `->` and `=>` close no generics.
            Kind::Punct('>') if !(is_punct(tokens, i - 1, '-') || is_punct(tokens, i - 1, '=')) => {
                angles = angles.saturating_sub(1)
            }
            Kind::Punct(',') if angles == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    tokens.len()
}

/// The name of the module an item declares, if it is `mod name;`.
fn declared_module(item: &[Token]) -> Option<String> {
    let at = item
        .iter()
        .position(|t| t.kind == Kind::Ident("mod".to_owned()))?;
    match (kind(item, at + 1), kind(item, at + 2)) {
        (Some(Kind::Ident(name)), Some(Kind::Punct(';'))) if at + 3 == item.len() => {
            Some(name.clone())
        }
        _ => None,
    }
}

/// Whether a path starts at `i`: a name followed by `::` that does not
/// continue another path, a method call (`.collect::<..>`) or a macro's
/// `$crate`.
fn starts_path(tokens: &[Token], i: usize) -> bool {
    if kind(tokens, i + 1) != Some(&Kind::PathSep) {
        return false;
    }
    !matches!(
        i.checked_sub(1).and_then(|p| kind(tokens, p)),
        Some(Kind::PathSep | Kind::Punct('.' | '$'))
    )
}

/// The paths of a path or a use tree starting at `i` (`a::b::{c, d::{self,
/// e as f}, g::*}` gives `a::b::c`, `a::b::d`, `a::b::d::e`, `a::b::g`),
/// and the index after it.
fn path_tree(tokens: &[Token], i: usize) -> (Vec<Vec<String>>, usize) {
    let mut imports = Vec::new();
    let end = use_tree(tokens, i, Vec::new(), &mut imports);
    (imports.into_iter().map(|import| import.path).collect(), end)
}

/// The imports of the use tree starting at `i`, below `prefix` (`a::{b as c,
/// d::{self, *}}` imports `a::b` as `c`, `a::d` as `d`, and every name of
/// `a::d`), and the index after the tree. A path that is no import reads as
/// one name imported (`crate::a::B::new` as `new`).
fn use_tree(
    tokens: &[Token],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Import>,
) -> usize {
    // A leading `::` names an external crate, which is no module of this one.
    if prefix.is_empty() && kind(tokens, i) == Some(&Kind::PathSep) {
        i += 1;
    }
    loop {
        match kind(tokens, i) {
            Some(Kind::Ident(segment)) => {
                prefix.push(segment.clone());
                i += 1;
                if kind(tokens, i) == Some(&Kind::PathSep) {
                    i += 1;
                    continue;
                }
                if prefix.len() > 1 && prefix.last().is_some_and(|last| last == "self") {
                    prefix.pop();
                }
                let mut name = prefix.last().cloned();
                // `x as Alias`, but not a cast to a path (`x as crate::T`).
                if kind(tokens, i) == Some(&Kind::Ident("as".to_owned()))
                    && kind(tokens, i + 2) != Some(&Kind::PathSep)
                {
                    if let Some(Kind::Ident(alias)) = kind(tokens, i + 1) {
                        name = Some(alias.clone());
                        i += 2;
                    }
                }
                out.push(Import { path: prefix, name });
                return i;
            }
            Some(Kind::Punct('*')) => {
                out.push(Import {
                    path: prefix,
                    name: None,
                });
                return i + 1;
            }
            Some(Kind::Punct('{')) => {
                i += 1;
                while i < tokens.len() && !is_punct(tokens, i, '}') {
                    // Past anything unexpected, to the next tree or the
                    // group's end.
                    i = use_tree(tokens, i, prefix.clone(), out).max(i + 1);
                    while i < tokens.len() && !is_punct(tokens, i, ',') && !is_punct(tokens, i, '}')
                    {
                        i += 1;
                    }
                    if is_punct(tokens, i, ',') {
                        i += 1;
                    }
                }
                return i + 1;
            }
            _ => return i,
        }
    }
}
