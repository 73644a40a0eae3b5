//! Numbers with a fixed count of decimals for messages. `format!("{x:.2}")`
//! on an `f64` links core's general float formatting (about 17 KB of wasm)
//! for a handful of messages; these are written with integer arithmetic.

/// `x` with `places` decimals (at most 6), rounded half away from zero:
/// `fixed(0.876, 2)` is `"0.88"`. Not-a-number and the infinities are
/// written as `NaN`, `inf` and `-inf`, and magnitudes of 10¹² or more as
/// `>1e12` or `<-1e12`.
pub fn fixed(x: f64, places: u32) -> String {
    let places = places.min(6);
    if x.is_nan() {
        return "NaN".into();
    }
    let sign = if x.is_sign_negative() && x != 0.0 {
        "-"
    } else {
        ""
    };
    if x.abs() >= 1e12 {
        return if x > 0.0 {
            ">1e12".into()
        } else {
            "<-1e12".into()
        };
    }
    let scale = 10u64.pow(places);
    // Exact: |x| < 10¹² and scale ≤ 10⁶ keep the product under 2⁶³.
    let scaled = (x.abs() * scale as f64).round() as u64;
    let (whole, frac) = (scaled / scale, scaled % scale);
    let sign = if scaled == 0 { "" } else { sign };
    if places == 0 {
        return format!("{sign}{whole}");
    }
    format!("{sign}{whole}.{frac:0width$}", width = places as usize)
}

#[cfg(test)]
mod tests {
    use super::fixed;

    #[test]
    fn writes_what_the_float_formatter_writes() {
        for (x, places) in [
            (0.876, 2),
            (0.5, 1),
            (0.05, 1),
            (1.0, 2),
            (0.0, 2),
            (12.345, 1),
            (-0.26, 1),
            (3.0, 0),
            (0.99999, 4),
        ] {
            assert_eq!(
                fixed(x, places),
                format!("{x:.p$}", p = places as usize),
                "{x} to {places}"
            );
        }
        assert_eq!(fixed(-0.0001, 2), "0.00");
        assert_eq!(fixed(f64::NAN, 2), "NaN");
        assert_eq!(fixed(f64::INFINITY, 2), ">1e12");
        assert_eq!(fixed(-1e300, 2), "<-1e12");
    }
}
