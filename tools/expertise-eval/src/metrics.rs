//! The measures of one ranking against the people who are right answers,
//! and their means over queries.
//!
//! A ranking lists people best first and may stop early or be empty (a
//! system that finds nobody); a right person it does not list counts as not
//! found. Relevance is binary.

/// The depth of nDCG.
pub const NDCG_DEPTH: usize = 10;

/// How one ranking did on one query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judged {
    /// 1 when the first person listed is right, else 0.
    pub precision_at_1: f64,
    /// 1 / the rank of the first right person; 0 when none is listed.
    pub reciprocal_rank: f64,
    /// DCG of the first ten (gain 1 per right person, discount
    /// 1 / log2(rank + 1)) over the DCG of an ideal ranking.
    pub ndcg_at_10: f64,
    /// Whether the ranking listed nobody.
    pub empty: bool,
}

/// Judges `ranking` against the set of right people `relevant` (each listed
/// once; a query without any right person is a mistake of the caller and
/// scores 0).
pub fn judge(ranking: &[usize], relevant: &[usize]) -> Judged {
    let is_right = |p: &usize| relevant.contains(p);
    let first_right = ranking.iter().position(is_right);
    let discount = |rank0: usize| 1.0 / ((rank0 + 2) as f64).log2();
    let dcg: f64 = ranking
        .iter()
        .take(NDCG_DEPTH)
        .enumerate()
        .filter(|(_, p)| is_right(p))
        .map(|(i, _)| discount(i))
        .sum();
    let ideal: f64 = (0..relevant.len().min(NDCG_DEPTH)).map(discount).sum();
    Judged {
        precision_at_1: if first_right == Some(0) { 1.0 } else { 0.0 },
        reciprocal_rank: first_right.map_or(0.0, |i| 1.0 / (i + 1) as f64),
        ndcg_at_10: if ideal > 0.0 { dcg / ideal } else { 0.0 },
        empty: ranking.is_empty(),
    }
}

/// The sums of the measures over the queries seen so far.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    queries: usize,
    precision_at_1: f64,
    reciprocal_rank: f64,
    ndcg_at_10: f64,
    empty: usize,
}

impl Tally {
    pub fn add(&mut self, judged: Judged) {
        self.queries += 1;
        self.precision_at_1 += judged.precision_at_1;
        self.reciprocal_rank += judged.reciprocal_rank;
        self.ndcg_at_10 += judged.ndcg_at_10;
        self.empty += usize::from(judged.empty);
    }

    pub fn queries(&self) -> usize {
        self.queries
    }

    fn mean(&self, sum: f64) -> f64 {
        if self.queries == 0 {
            0.0
        } else {
            sum / self.queries as f64
        }
    }

    pub fn precision_at_1(&self) -> f64 {
        self.mean(self.precision_at_1)
    }

    /// MRR.
    pub fn mean_reciprocal_rank(&self) -> f64 {
        self.mean(self.reciprocal_rank)
    }

    pub fn ndcg_at_10(&self) -> f64 {
        self.mean(self.ndcg_at_10)
    }

    /// The share of queries answered with nobody.
    pub fn empty_share(&self) -> f64 {
        self.mean(self.empty as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn a_right_first_answer_scores_one_everywhere() {
        let j = judge(&[4, 1, 2], &[4]);
        assert_eq!(j.precision_at_1, 1.0);
        assert_eq!(j.reciprocal_rank, 1.0);
        assert!(close(j.ndcg_at_10, 1.0));
        assert!(!j.empty);
    }

    #[test]
    fn a_right_third_answer() {
        let j = judge(&[0, 1, 2, 3], &[2]);
        assert_eq!(j.precision_at_1, 0.0);
        assert!(close(j.reciprocal_rank, 1.0 / 3.0));
        // DCG 1/log2(4) = 0.5 over an ideal of 1.
        assert!(close(j.ndcg_at_10, 0.5));
    }

    #[test]
    fn several_right_people_are_graded_against_the_ideal_order() {
        // Right people at ranks 2 and 3 of three right people.
        let j = judge(&[9, 5, 6, 8], &[5, 6, 7]);
        let dcg = 1.0 / 3f64.log2() + 1.0 / 4f64.log2();
        let ideal = 1.0 + 1.0 / 3f64.log2() + 1.0 / 4f64.log2();
        assert!(close(j.ndcg_at_10, dcg / ideal));
        assert!(close(j.reciprocal_rank, 0.5));
        let perfect = judge(&[7, 6, 5, 0], &[5, 6, 7]);
        assert!(close(perfect.ndcg_at_10, 1.0));
    }

    #[test]
    fn answers_below_rank_ten_count_for_mrr_but_not_ndcg() {
        let ranking: Vec<usize> = (0..20).collect();
        let j = judge(&ranking, &[12]);
        assert!(close(j.reciprocal_rank, 1.0 / 13.0));
        assert_eq!(j.ndcg_at_10, 0.0);
    }

    #[test]
    fn nobody_and_the_wrong_people_score_zero() {
        let nobody = judge(&[], &[3]);
        assert!(nobody.empty);
        assert_eq!(
            (
                nobody.precision_at_1,
                nobody.reciprocal_rank,
                nobody.ndcg_at_10
            ),
            (0.0, 0.0, 0.0)
        );
        let wrong = judge(&[1, 2], &[3]);
        assert!(!wrong.empty);
        assert_eq!(wrong.reciprocal_rank, 0.0);
    }

    #[test]
    fn the_tally_averages_over_queries() {
        let mut t = Tally::default();
        assert_eq!(t.mean_reciprocal_rank(), 0.0);
        t.add(judge(&[1], &[1]));
        t.add(judge(&[0, 1], &[1]));
        t.add(judge(&[], &[1]));
        t.add(judge(&[2, 3, 4, 1], &[1]));
        assert_eq!(t.queries(), 4);
        assert!(close(t.precision_at_1(), 0.25));
        assert!(close(
            t.mean_reciprocal_rank(),
            (1.0 + 0.5 + 0.0 + 0.25) / 4.0
        ));
        assert!(close(t.empty_share(), 0.25));
        let ndcg = (1.0 + 1.0 / 3f64.log2() + 0.0 + 1.0 / 5f64.log2()) / 4.0;
        assert!(close(t.ndcg_at_10(), ndcg));
    }
}
