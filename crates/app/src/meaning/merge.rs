//! One topic reached several ways (by several topics of a query, or by
//! several models) counts once.

use kenning_domain::QueryTerm;

/// Adds `term` to `reached`, or, when a term of its key is there, keeps
/// the one of the greater weight, then of the greater similarity; the
/// one already there when both are equal, so that the order the terms
/// come in decides and the answer is the same every time.
pub(crate) fn keep_greater(reached: &mut Vec<QueryTerm>, term: QueryTerm) {
    let rank = |t: &QueryTerm| (t.weight, t.similarity.unwrap_or(0.0));
    match reached.iter_mut().find(|t| t.key == term.key) {
        Some(known) if rank(known) >= rank(&term) => {}
        Some(known) => *known = term,
        None => reached.push(term),
    }
}
