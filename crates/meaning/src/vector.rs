//! Vectors of unit length, as both embedders give them.

/// `vector` scaled to unit length; `None` when it is zero.
pub(crate) fn unit(mut vector: Vec<f32>) -> Option<Vec<f32>> {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm <= f32::EPSILON || !norm.is_finite() {
        return None;
    }
    vector.iter_mut().for_each(|x| *x /= norm);
    Some(vector)
}
