//! Vectors in eight bits a component, and the similarity of two read
//! without turning them back into floats.

/// A unit vector in eight bits a component: its components times `scale`,
/// rounded, `scale` spreading the largest over the whole range. A quarter
/// of the memory of 32-bit floats, for an error of the similarity well
/// under 0.01.
#[derive(Debug, Clone)]
pub(super) struct Quantized {
    pub(super) codes: Vec<i8>,
    pub(super) scale: f32,
}

impl Quantized {
    pub(super) fn new(vector: &[f32]) -> Self {
        let largest = vector.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if largest > 0.0 {
            f32::from(i8::MAX) / largest
        } else {
            1.0
        };
        let codes = vector
            .iter()
            // In range by construction: |x| * scale <= 127.
            .map(|x| (x * scale).round().clamp(-127.0, 127.0) as i8)
            .collect();
        Self { codes, scale }
    }
}

/// How many products of a dot product are summed side by side: lanes
/// the compiler keeps in vector registers.
const LANES: usize = 16;

/// The similarity of two quantized unit vectors of one length.
pub(super) fn similarity(a: &[i8], a_scale: f32, b: &[i8], b_scale: f32) -> f32 {
    let mut sums = [0i32; LANES];
    let (a_chunks, b_chunks) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: i32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..LANES {
            sums[lane] += i32::from(i16::from(x[lane]) * i16::from(y[lane]));
        }
    }
    (sums.iter().sum::<i32>() + tail) as f32 / (a_scale * b_scale)
}

/// The dot product of two vectors of one length.
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_bits_a_component_keep_the_similarity_to_a_hundredth() {
        // Deterministic, spread vectors of the model's length.
        let vector = |seed: u32| -> Vec<f32> {
            let raw: Vec<f32> = (0..384u32)
                .map(|i| {
                    let mixed = i.wrapping_mul(2_654_435_761) ^ seed.wrapping_mul(40_503);
                    (mixed % 1000) as f32 - 499.5
                })
                .collect();
            let norm = dot(&raw, &raw).sqrt();
            raw.into_iter().map(|x| x / norm).collect()
        };
        for (a, b) in [(1, 2), (3, 4), (5, 5)] {
            let (a, b) = (vector(a), vector(b));
            let (qa, qb) = (Quantized::new(&a), Quantized::new(&b));
            let exact = dot(&a, &b);
            let read = similarity(&qa.codes, qa.scale, &qb.codes, qb.scale);
            assert!((exact - read).abs() < 0.01, "{exact} read as {read}");
        }
        let zero = Quantized::new(&[0.0; 4]);
        assert_eq!((zero.codes, zero.scale), (vec![0; 4], 1.0));
    }
}
