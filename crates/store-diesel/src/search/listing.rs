//! The listing order read by testing rows: every user, the matches among
//! the head of the list (step 1) and the matches among every row (step 3),
//! each from the start or from a page's position.

use super::pages::{past, Bounds, Page};
use crate::location::Backend;
use crate::sql::{Binder, Statement};

/// `%`, `_` and the escape character itself match literally in a LIKE
/// pattern once escaped.
pub(super) fn like_pattern(needle: &str) -> String {
    let mut pattern = String::with_capacity(needle.len() + 2);
    pattern.push('%');
    for c in needle.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// The users from `position` on (from the start without one), in listing
/// order: a range of the listing index.
fn listing(position: Option<&str>) -> String {
    format!(
        "SELECT users.* FROM users{} ORDER BY lastname, firstname, id",
        past(position, " WHERE ", "")
    )
}

/// Every user (no search text), in listing order.
pub(super) fn all(backend: Backend, page: Page) -> Statement {
    let mut sql = Binder::new(backend);
    let position = page.position(&mut sql);
    let Bounds { limit, .. } = page.bounds(&mut sql);
    sql.statement(format!("{} {limit}", listing(position.as_deref())))
}

/// Step 1: the matches of `pattern` among the first users of the page's
/// [`Page::window`].
pub(super) fn head(backend: Backend, page: Page, pattern: &str) -> Statement {
    let mut sql = Binder::new(backend);
    let position = page.position(&mut sql);
    let window = sql.int(page.window());
    let pattern = sql.text(pattern);
    let Bounds { limit, .. } = page.bounds(&mut sql);
    sql.statement(format!(
        "SELECT * FROM ({} LIMIT {window}) AS head \
         WHERE search_text LIKE {pattern} ESCAPE '\\' \
         ORDER BY lastname, firstname, id {limit}",
        listing(position.as_deref())
    ))
}

/// Step 3: every row tested against `pattern`, in listing order.
pub(super) fn scan(backend: Backend, page: Page, pattern: &str) -> Statement {
    let mut sql = Binder::new(backend);
    let position = page.position(&mut sql);
    let pattern = sql.text(pattern);
    let Bounds { limit, .. } = page.bounds(&mut sql);
    sql.statement(format!(
        "SELECT users.* FROM users WHERE {}search_text LIKE {pattern} ESCAPE '\\' \
         ORDER BY lastname, firstname, id {limit}",
        past(position.as_deref(), "", " AND ")
    ))
}

#[cfg(test)]
mod tests {
    use super::like_pattern;

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(like_pattern("a%b_c\\d"), "%a\\%b\\_c\\\\d%");
    }
}
