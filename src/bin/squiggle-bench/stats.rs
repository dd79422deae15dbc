//! Median and p95 over repeated samples, and the table rows that print them.

use std::time::Duration;

/// Samples of one measurement, in milliseconds.
#[derive(Default, Clone)]
pub struct Samples(Vec<f64>);

impl Samples {
    pub fn push(&mut self, d: Duration) {
        self.0.push(d.as_secs_f64() * 1000.0);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    fn sorted(&self) -> Vec<f64> {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        v
    }

    /// Nearest-rank percentile, `q` in 0..=1.
    pub fn percentile(&self, q: f64) -> f64 {
        let v = self.sorted();
        if v.is_empty() {
            return f64::NAN;
        }
        let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
        v[rank - 1]
    }

    pub fn median(&self) -> f64 {
        let v = self.sorted();
        match v.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    }

    pub fn p95(&self) -> f64 {
        self.percentile(0.95)
    }
}

/// `1.234 ms` with a precision that suits the size.
pub fn ms(v: f64) -> String {
    if v.is_nan() {
        "-".into()
    } else if v < 1.0 {
        format!("{:.0} µs", v * 1000.0)
    } else if v < 100.0 {
        format!("{v:.2} ms")
    } else {
        format!("{v:.0} ms")
    }
}

/// A table cell: the median with its p95, `12.34 ms (p95 20.01 ms)`.
pub fn median_p95(s: &Samples) -> String {
    format!("{} (p95 {})", ms(s.median()), ms(s.p95()))
}

/// One markdown table row: name, median, p95, samples.
pub fn row(name: &str, s: &Samples) {
    println!(
        "| {name} | {} | {} | {} |",
        ms(s.median()),
        ms(s.p95()),
        s.len()
    );
}

pub fn header(first: &str) {
    println!("| {first} | median | p95 | runs |");
    println!("| --- | --- | --- | --- |");
}

/// The ratio of two medians from the same interleaved run.
pub fn ratio(name: &str, a: &Samples, b: &Samples) {
    println!("| {name} | {:.2}× |", a.median() / b.median());
}
