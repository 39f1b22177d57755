//! Exact Kubernetes quantities (`resource.Quantity`, apimachinery `pkg/api/resource`:
//! `quantity.go`, `amount.go`, `math.go`, `scale_int.go`, `suffix.go`), because the controller's
//! arithmetic starts from them: `MilliValue()` (which rounds up), the float that
//! `AsApproximateFloat64()` returns, and the text `Quantity.String()` prints.
//!
//! A [`Quantity`] is the value *as the controller sees it*. Kubernetes parses the text a user
//! wrote (`ParseQuantity`), the API server stores and serves its `String()`, and the controller
//! parses that served text again. The two parses can hold the same number differently (Go keeps
//! an `int64Amount` or an arbitrary-precision `inf.Dec`, and the two round negative values
//! differently in `ScaledValue`), so [`Quantity::parse`] does that round trip too.
//!
//! Deliberate differences from Go: an exponent beyond ±10^9 and an arbitrary-precision value of
//! more than about 10^29 units are refused as out of range (Go's `int32` scale arithmetic would
//! wrap, or it would allocate huge integers); a milli-value Go would overflow or compute from a
//! wrapped `Int64()` is an error, not a number.

use std::cmp::Ordering;
use std::fmt;
use std::num::IntErrorKind;

/// `resource.Format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    DecimalSI,
    BinarySI,
    DecimalExponent,
}

/// A parsed quantity: exact decimal value and the format its suffix implies, as the controller
/// holds it after the round trip through the API server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quantity {
    /// value = mantissa × 10^exponent, exactly (Go's `int64Amount.value`/`scale`, or the
    /// `inf.Dec` unscaled value and minus its scale).
    pub mantissa: i128,
    pub exponent: i32,
    pub format: Format,
    repr: Repr,
    /// What the user wrote, for error messages.
    text: String,
    /// `String()` of the parsed text: what the API server serves.
    served: String,
}

/// How Go holds the amount; `ScaledValue` rounds negative values differently for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repr {
    /// `int64Amount`: the mantissa fits in an i64.
    Int64,
    /// `inf.Dec`.
    Dec,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantityError {
    pub found: String,
    pub problem: String,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "found {}, expected {}",
            crate::quote::quoted(&self.found),
            self.problem
        )
    }
}

impl std::error::Error for QuantityError {}

/// Why a text or a conversion was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Problem {
    /// `ErrFormatWrong`, `ErrSuffix`, `ErrNumeric`.
    Grammar,
    /// Beyond what this port holds exactly (see the module comment).
    OutOfRange,
    /// `MilliValue()` overflows int64.
    MilliOverflow,
}

impl Problem {
    fn expected(self) -> &'static str {
        match self {
            Problem::Grammar => "a Kubernetes quantity such as 250m, 1.5 or 512Mi",
            Problem::OutOfRange => {
                "a quantity in range (at most 29 digits before the decimal point and an exponent \
                 within ±1000000000); this value is out of range"
            }
            Problem::MilliOverflow => "a quantity whose milli-value fits in 64 bits",
        }
    }

    fn at(self, found: &str) -> QuantityError {
        QuantityError {
            found: found.to_owned(),
            problem: self.expected().to_owned(),
        }
    }
}

/// `maxInt64Factors` (math.go): the digits an int64 always holds.
const MAX_INT64_FACTORS: i64 = 18;
/// `Nano` (amount.go): the finest scale a parsed quantity keeps.
const NANO: i64 = -9;
/// Largest exponent accepted; keeps Go's int32 scale arithmetic from wrapping.
const MAX_EXPONENT: i64 = 1_000_000_000;

/// One `ParseQuantity` result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Amount {
    mantissa: i128,
    exponent: i32,
    format: Format,
    repr: Repr,
    /// `ParseQuantity` cached the input as the `String()` form (`s: str`).
    keeps_text: bool,
}

impl Quantity {
    /// `ParseQuantity(text)`, then `ParseQuantity` of its `String()` (the served form). Leading
    /// and trailing spaces are refused, as `ParseQuantity` refuses them.
    // Port of ParseQuantity / parseQuantityString (apimachinery quantity.go)
    pub fn parse(text: &str) -> Result<Quantity, QuantityError> {
        let first = go_parse(text).map_err(|p| p.at(text))?;
        let served = canonical_string(&first, text).ok_or_else(|| Problem::OutOfRange.at(text))?;
        let second = go_parse(&served).map_err(|p| p.at(text))?;
        Ok(Quantity {
            mantissa: second.mantissa,
            exponent: second.exponent,
            format: second.format,
            repr: second.repr,
            text: text.to_owned(),
            served,
        })
    }

    /// `Quantity.MilliValue()`: ceil(q × 1000) for positive values. For negative values the
    /// result depends on Go's representation: an `int64Amount` rounds away from zero
    /// (`negativeScaleInt64`: -1.5m → -2), an `inf.Dec` truncates and then adds one
    /// (`scaledValue`'s fast path). An overflow of int64 is an error.
    // Port of Quantity.MilliValue / ScaledValue (quantity.go), int64Amount.AsScaledInt64
    // (amount.go), scaledValue (scale_int.go)
    pub fn milli_value(&self) -> Result<i64, QuantityError> {
        const MILLI: i64 = -3;
        let result = match self.repr {
            Repr::Int64 => {
                let scale = i64::from(self.exponent);
                if scale < MILLI {
                    // Never overflows: the magnitude only shrinks.
                    let (value, _exact) = negative_scale_int64(self.mantissa, MILLI - scale);
                    i64::try_from(value).map_err(|_| Problem::MilliOverflow)
                } else {
                    positive_scale_int64(self.mantissa, scale - MILLI)
                }
            }
            Repr::Dec => scaled_value(self.mantissa, -i64::from(self.exponent), -MILLI),
        };
        result.map_err(|p| p.at(&self.text))
    }

    /// `Quantity.AsApproximateFloat64()` of the served form: `base * math.Pow10(exponent)`, with
    /// Go's `Pow10` (division by an exact power of ten for negative exponents).
    // Port of Quantity.AsApproximateFloat64 (quantity.go) and math.Pow10 (Go math/pow10.go)
    pub fn as_approximate_f64(&self) -> f64 {
        // Go's float64(int64) and big.Float.Float64() both round to nearest, ties to even, as
        // Rust's integer-to-float `as` does.
        #[allow(clippy::cast_precision_loss)]
        let base = self.mantissa as f64;
        if self.exponent == 0 {
            return base;
        }
        base * go_pow10(self.exponent)
    }
}

impl fmt::Display for Quantity {
    /// `Quantity.String()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.served)
    }
}

/// Parses and returns `MilliValue()`.
pub fn parse_milli(text: &str) -> Result<i64, QuantityError> {
    match plain_milli(text) {
        Some(milli) => Ok(milli),
        None => Quantity::parse(text)?.milli_value(),
    }
}

/// The milli-value of the forms requests and usages are written in (`250m`, `2`, `512Mi`,
/// `123456Ki`): digits and one of the common suffixes, read without `Quantity::parse`'s
/// canonical string, exactly as it reads them (a test compares them). `None` for any other form
/// or a value past `i64`, which `Quantity::parse` reads or refuses.
fn plain_milli(text: &str) -> Option<i64> {
    const SUFFIXES: [(&str, i64); 10] = [
        ("m", 1),
        ("", 1_000),
        ("k", 1_000_000),
        ("M", 1_000_000_000),
        ("G", 1_000_000_000_000),
        ("T", 1_000_000_000_000_000),
        ("Ki", 1_024_000),
        ("Mi", 1_048_576_000),
        ("Gi", 1_073_741_824_000),
        ("Ti", 1_099_511_627_776_000),
    ];
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 18 {
        return None;
    }
    let (number, suffix) = text.split_at_checked(digits)?;
    let &(_, scale) = SUFFIXES.iter().find(|(s, _)| *s == suffix)?;
    number.parse::<i64>().ok()?.checked_mul(scale)
}

/// `resource.NewMilliQuantity(milli, format).String()`.
// Port of NewMilliQuantity + Quantity.String / CanonicalizeBytes (quantity.go)
pub fn format_milli(milli: i64, format: Format) -> String {
    let amount = Amount {
        mantissa: i128::from(milli),
        exponent: -3,
        format,
        repr: Repr::Int64,
        keeps_text: false,
    };
    // An i64 at scale -3 never overflows the i128 arithmetic; the fallback is the same value,
    // just not canonical.
    canonical_string(&amount, "").unwrap_or_else(|| format!("{milli}m"))
}

/// `Quantity.String()` of a parsed quantity: what the API server serves back (`500m`, `1Gi`).
pub fn format_value(q: &Quantity) -> String {
    q.served.clone()
}

/// `parseQuantityString`'s pieces. `num` has its leading zeros stripped (or is `"0"`).
struct Scanned<'a> {
    positive: bool,
    value: &'a [u8],
    num: &'a [u8],
    denom: &'a [u8],
    suffix: &'a [u8],
}

// Port of parseQuantityString (quantity.go); None is ErrFormatWrong
fn scan(s: &[u8]) -> Option<Scanned<'_>> {
    let end = s.len();
    let mut pos = 0;
    let mut positive = true;
    match s.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    while s.get(pos) == Some(&b'0') {
        pos += 1;
    }
    if pos >= end {
        // Only a sign and zeros (or nothing after the sign): Go returns zero.
        return Some(Scanned {
            positive,
            value: b"0",
            num: b"0",
            denom: b"",
            suffix: b"",
        });
    }
    let digits_from = |start: usize| {
        let mut i = start;
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let start = pos;
    pos = digits_from(pos);
    let mut num = s.get(start..pos)?;
    if pos >= end {
        return Some(Scanned {
            positive,
            value: s,
            num,
            denom: b"",
            suffix: b"",
        });
    }
    if num.is_empty() {
        num = b"0";
    }
    let mut denom: &[u8] = b"";
    if s.get(pos) == Some(&b'.') {
        pos += 1;
        let denom_start = pos;
        pos = digits_from(pos);
        denom = s.get(denom_start..pos)?;
        if pos >= end {
            return Some(Scanned {
                positive,
                value: s,
                num,
                denom,
                suffix: b"",
            });
        }
    }
    let value = s.get(..pos)?;
    let suffix_start = pos;
    while s.get(pos).is_some_and(|c| b"eEinumkKMGTP".contains(c)) {
        pos += 1;
    }
    if matches!(s.get(pos), Some(b'-' | b'+')) {
        pos += 1;
    }
    pos = digits_from(pos);
    if pos < end {
        return None;
    }
    Some(Scanned {
        positive,
        value,
        num,
        denom,
        suffix: s.get(suffix_start..)?,
    })
}

/// Base (10 or 2), exponent and format of a suffix.
// Port of fastLookup.interpret / suffixHandler.interpret (suffix.go)
fn interpret(suffix: &[u8]) -> Result<(u32, i64, Format), Problem> {
    use Format::{BinarySI, DecimalExponent, DecimalSI};
    let decimal = |exponent| Ok((10, exponent, DecimalSI));
    let binary = |exponent| Ok((2, exponent, BinarySI));
    match suffix {
        b"" => decimal(0),
        b"n" => decimal(-9),
        b"u" => decimal(-6),
        b"m" => decimal(-3),
        b"k" => decimal(3),
        b"M" => decimal(6),
        b"G" => decimal(9),
        b"T" => decimal(12),
        b"P" => decimal(15),
        b"E" => decimal(18),
        b"Ki" => binary(10),
        b"Mi" => binary(20),
        b"Gi" => binary(30),
        b"Ti" => binary(40),
        b"Pi" => binary(50),
        b"Ei" => binary(60),
        [b'e' | b'E', rest @ ..] if !rest.is_empty() => {
            // strconv.ParseInt(rest, 10, 64): an optional sign, then decimal digits.
            let text = std::str::from_utf8(rest).map_err(|_| Problem::Grammar)?;
            let exponent: i64 =
                text.parse()
                    .map_err(|e: std::num::ParseIntError| match e.kind() {
                        IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => {
                            Problem::OutOfRange
                        }
                        _ => Problem::Grammar,
                    })?;
            if exponent.abs() > MAX_EXPONENT {
                return Err(Problem::OutOfRange);
            }
            Ok((10, exponent, DecimalExponent))
        }
        _ => Err(Problem::Grammar),
    }
}

// Port of ParseQuantity (quantity.go)
fn go_parse(text: &str) -> Result<Amount, Problem> {
    if text.is_empty() {
        return Err(Problem::Grammar);
    }
    if text == "0" {
        return Ok(Amount {
            mantissa: 0,
            exponent: 0,
            format: Format::DecimalSI,
            repr: Repr::Int64,
            keeps_text: true,
        });
    }
    let scanned = scan(text.as_bytes()).ok_or(Problem::Grammar)?;
    let (base, exponent, format) = interpret(scanned.suffix)?;
    let num_len = i64::try_from(scanned.num.len()).map_err(|_| Problem::OutOfRange)?;
    let denom_len = i64::try_from(scanned.denom.len()).map_err(|_| Problem::OutOfRange)?;

    // The int64 fast path, with Go's own test for "few enough digits".
    let (precision, scale, multiplier) = match format {
        Format::DecimalExponent | Format::DecimalSI => {
            (MAX_INT64_FACTORS - (num_len + denom_len), exponent, 1_i64)
        }
        Format::BinarySI if exponent >= 0 && denom_len == 0 => {
            let shift = u32::try_from(exponent).map_err(|_| Problem::OutOfRange)?;
            // int32(float32(exponent)*3/10) is exact for the exponents 10..60.
            let precision = 15 - num_len - exponent * 3 / 10 - 1;
            (
                precision,
                0,
                1_i64.checked_shl(shift).ok_or(Problem::OutOfRange)?,
            )
        }
        Format::BinarySI => (-1, 0, 1),
    };
    if precision >= 0 {
        let scale = scale - denom_len;
        if scale >= NANO {
            let shifted: Vec<u8> = scanned.num.iter().chain(scanned.denom).copied().collect();
            // At most 18 digits: strconv.ParseInt cannot fail.
            let parsed = shifted.iter().try_fold(0_i64, |acc, &d| {
                acc.checked_mul(10)?.checked_add(i64::from(d - b'0'))
            });
            let product = parsed.and_then(|v| Some((v, v.checked_mul(multiplier)?)));
            if let Some((value, result)) = product {
                let result = if scanned.positive { result } else { -result };
                // "if the number is in canonical form, reuse the string"
                let keeps_text = match format {
                    Format::BinarySI => exponent % 10 == 0 && value & 0x07 != 0,
                    _ => {
                        scale % 3 == 0
                            && !shifted.ends_with(b"000")
                            && shifted.first() != Some(&b'0')
                    }
                };
                return Ok(Amount {
                    mantissa: i128::from(result),
                    exponent: i32::try_from(scale).map_err(|_| Problem::OutOfRange)?,
                    format,
                    repr: Repr::Int64,
                    keeps_text,
                });
            }
        }
    }
    dec_parse(&scanned, base, exponent, format, denom_len)
}

/// The `inf.Dec` half of `ParseQuantity`: exact value, rounded away from zero to nano units,
/// BinarySI capped at 2^63-1.
// Port of the inf.Dec branch of ParseQuantity (quantity.go)
fn dec_parse(
    scanned: &Scanned<'_>,
    base: u32,
    exponent: i64,
    mut format: Format,
    denom_len: i64,
) -> Result<Amount, Problem> {
    // inf.Dec.SetString needs at least one digit ("." alone is ErrNumeric here).
    if !scanned.value.iter().any(u8::is_ascii_digit) {
        return Err(Problem::Grammar);
    }
    let digits = || scanned.num.iter().chain(scanned.denom);
    if digits().all(|&d| d == b'0') {
        return Ok(Amount {
            mantissa: 0,
            exponent: 0,
            format,
            repr: Repr::Dec,
            keeps_text: false,
        });
    }
    let (multiplier, decimal_exponent) = if base == 2 {
        let shift = u32::try_from(exponent).map_err(|_| Problem::OutOfRange)?;
        (1_u128.checked_shl(shift).ok_or(Problem::OutOfRange)?, 0)
    } else {
        (1, exponent)
    };
    // The value in nano units is digits × multiplier × 10^shift.
    let shift = decimal_exponent - denom_len - NANO;
    let nanos = round_up_scaled(digits().rev().map(|&d| d - b'0'), multiplier, shift);
    // maxAllowed (math.go) in nano units.
    let max_allowed = u128::from(i64::MAX.unsigned_abs()) * 1_000_000_000;
    let (magnitude, exponent) = match nanos {
        Some(n) if format != Format::BinarySI || n <= max_allowed => (n, NANO),
        // "The max is just a simple cap" (BinarySI only); amount.Set(maxAllowed) has scale 0.
        _ if format == Format::BinarySI => (u128::from(i64::MAX.unsigned_abs()), 0),
        _ => return Err(Problem::OutOfRange),
    };
    if format == Format::BinarySI && exponent == NANO && magnitude < 1_000_000_000 {
        // "This avoids rounding and hopefully confusion, too."
        format = Format::DecimalSI;
    }
    let magnitude = i128::try_from(magnitude).map_err(|_| Problem::OutOfRange)?;
    Ok(Amount {
        mantissa: if scanned.positive {
            magnitude
        } else {
            -magnitude
        },
        exponent: i32::try_from(exponent).map_err(|_| Problem::OutOfRange)?,
        format,
        repr: Repr::Dec,
        keeps_text: false,
    })
}

/// ceil(D × multiplier × 10^shift) for the decimal digits of D (least significant first),
/// without big integers: multiply digit by digit, drop the digits below the unit (remembering
/// whether any was non-zero), and accumulate the rest. None if it exceeds u128.
// Port of inf.Dec.Round(amount, Nano, inf.RoundUp) on a non-negative amount
fn round_up_scaled(digits: impl Iterator<Item = u8>, multiplier: u128, shift: i64) -> Option<u128> {
    let mut total: u128 = 0;
    let mut dropped_non_zero = false;
    let mut add = |digit: u128, position: i64| -> Option<()> {
        let target = position.checked_add(shift)?;
        if target < 0 {
            dropped_non_zero |= digit != 0;
        } else if digit != 0 {
            let place = 10_u128.checked_pow(u32::try_from(target).ok()?)?;
            total = total.checked_add(digit.checked_mul(place)?)?;
        }
        Some(())
    };
    let mut carry: u128 = 0;
    let mut position: i64 = 0;
    for digit in digits {
        let t = u128::from(digit) * multiplier + carry;
        add(t % 10, position)?;
        carry = t / 10;
        position += 1;
    }
    while carry > 0 {
        add(carry % 10, position)?;
        carry /= 10;
        position += 1;
    }
    if dropped_non_zero {
        total = total.checked_add(1)?;
    }
    Some(total)
}

/// `Quantity.String()`; None only if the i128 arithmetic would overflow.
// Port of Quantity.String / CanonicalizeBytes (quantity.go, the DecimalSI→DecimalExponent
// fallback of kubernetes/apimachinery@357557a670d84c30ef3b5355f02c11d8aba5a941)
fn canonical_string(amount: &Amount, text: &str) -> Option<String> {
    if amount.keeps_text {
        return Some(text.to_owned());
    }
    if amount.mantissa == 0 {
        return Some("0".to_owned());
    }
    let mut format = amount.format;
    let mut whole = None;
    if format == Format::BinarySI {
        if compare_int(amount, -1024) == Ordering::Greater
            && compare_int(amount, 1024) == Ordering::Less
        {
            format = Format::DecimalSI;
        } else {
            match as_scale_zero(amount)? {
                (value, true) => whole = Some(value),
                // "Don't lose precision-- show as DecimalSI"
                (_, false) => format = Format::DecimalSI,
            }
        }
    }
    if let (Format::BinarySI, Some(value)) = (format, whole) {
        // AsCanonicalBase1024Bytes; a power of 1024 without a suffix (0 or beyond Ei) gets none.
        let (number, times) = remove_factors(value, 1024);
        let suffix = match times {
            1 => "Ki",
            2 => "Mi",
            3 => "Gi",
            4 => "Ti",
            5 => "Pi",
            6 => "Ei",
            _ => "",
        };
        return Some(format!("{number}{suffix}"));
    }
    let (number, exponent) = canonical_decimal(amount)?;
    let suffix = match (format, exponent) {
        (Format::DecimalSI, -9) => "n".to_owned(),
        (Format::DecimalSI, -6) => "u".to_owned(),
        (Format::DecimalSI, -3) => "m".to_owned(),
        (_, 0) => String::new(),
        (Format::DecimalSI, 3) => "k".to_owned(),
        (Format::DecimalSI, 6) => "M".to_owned(),
        (Format::DecimalSI, 9) => "G".to_owned(),
        (Format::DecimalSI, 12) => "T".to_owned(),
        (Format::DecimalSI, 15) => "P".to_owned(),
        (Format::DecimalSI, 18) => "E".to_owned(),
        // DecimalExponent, and DecimalSI beyond its suffixes.
        _ => format!("e{exponent}"),
    };
    Some(format!("{number}{suffix}"))
}

/// Mantissa without trailing zeros, then scaled so the exponent is the multiple of 3 below.
// Port of int64Amount.AsCanonicalBytes / infDecAmount.AsCanonicalBytes (amount.go)
fn canonical_decimal(amount: &Amount) -> Option<(i128, i64)> {
    let (number, times) = remove_factors(amount.mantissa, 10);
    let exponent = i64::from(amount.exponent) + i64::from(times);
    match exponent.rem_euclid(3) {
        1 => Some((number.checked_mul(10)?, exponent - 1)),
        2 => Some((number.checked_mul(100)?, exponent - 2)),
        _ => Some((number, exponent)),
    }
}

/// (value / base^times, times) with as many factors of `base` removed as divide it.
// Port of removeInt64Factors / removeBigIntFactors (math.go)
fn remove_factors(mut value: i128, base: i128) -> (i128, u32) {
    let mut times = 0;
    while value != 0 && value % base == 0 {
        value /= base;
        times += 1;
    }
    (value, times)
}

/// The value at scale 0 rounded away from zero, and whether that was exact.
// Port of int64Amount.AsScale(0) / infDecAmount.AsScale(0) (amount.go)
fn as_scale_zero(amount: &Amount) -> Option<(i128, bool)> {
    let exponent = i64::from(amount.exponent);
    if exponent >= 0 {
        let factor = pow10(exponent)?;
        return Some((amount.mantissa.checked_mul(factor)?, true));
    }
    match amount.repr {
        Repr::Int64 => Some(negative_scale_int64(amount.mantissa, -exponent)),
        Repr::Dec => {
            // inf.RoundUp rounds away from zero.
            let Some(divisor) = pow10(-exponent) else {
                return Some((amount.mantissa.signum(), false));
            };
            let quotient = amount.mantissa / divisor;
            if amount.mantissa % divisor == 0 {
                Some((quotient, true))
            } else {
                Some((quotient + amount.mantissa.signum(), false))
            }
        }
    }
}

/// The sign of value − y, exactly.
// Port of Quantity.CmpInt64 (quantity.go)
fn compare_int(amount: &Amount, y: i128) -> Ordering {
    let exponent = i64::from(amount.exponent);
    if exponent >= 0 {
        match pow10(exponent).and_then(|f| amount.mantissa.checked_mul(f)) {
            Some(value) => value.cmp(&y),
            None => amount.mantissa.cmp(&0),
        }
    } else {
        match pow10(-exponent).and_then(|f| y.checked_mul(f)) {
            Some(scaled_y) => amount.mantissa.cmp(&scaled_y),
            // |y| × 10^k beyond i128 is beyond any mantissa.
            None => 0.cmp(&y),
        }
    }
}

/// 10^n, or None beyond i128.
fn pow10(n: i64) -> Option<i128> {
    10_i128.checked_pow(u32::try_from(n).ok()?)
}

/// Divide by 10^scale, rounding away from zero; stops early once the value is zero.
// Port of negativeScaleInt64 (math.go)
fn negative_scale_int64(base: i128, scale: i64) -> (i128, bool) {
    if scale == 0 {
        return (base, true);
    }
    let mut value = base;
    let mut fraction = false;
    for _ in 0..scale {
        if !fraction && value % 10 != 0 {
            fraction = true;
        }
        value /= 10;
        if value == 0 {
            if fraction {
                return (if base > 0 { 1 } else { -1 }, false);
            }
            return (0, true);
        }
    }
    if fraction {
        value += if base > 0 { 1 } else { -1 };
    }
    (value, !fraction)
}

/// base × 10^scale as an i64; Go's `ok == false` (which MilliValue ignores) is an error here.
// Port of positiveScaleInt64 (math.go)
fn positive_scale_int64(base: i128, scale: i64) -> Result<i64, Problem> {
    if base == 0 {
        return Ok(0);
    }
    pow10(scale)
        .and_then(|factor| base.checked_mul(factor))
        .and_then(|value| i64::try_from(value).ok())
        .ok_or(Problem::MilliOverflow)
}

/// Rescale an `inf.Dec` (unscaled × 10^-scale) to `new_scale`, "ALWAYS" rounding up: the fast
/// path truncates toward zero and adds one when inexact, the big-integer path floors and adds
/// one.
// Port of scaledValue (scale_int.go)
fn scaled_value(unscaled: i128, scale: i64, new_scale: i64) -> Result<i64, Problem> {
    let dif = scale - new_scale;
    if dif == 0 {
        return i64::try_from(unscaled).map_err(|_| Problem::MilliOverflow);
    }
    if dif < 0 {
        return positive_scale_int64(unscaled, -dif);
    }
    const LOG10_MAX_INT64: i64 = 19;
    if unscaled < i128::from(i64::MAX) && dif < LOG10_MAX_INT64 {
        // Go calls unscaled.Int64() here, below i64::MIN too: `-9223372036854775808m`, rounded to
        // nano-units by ParseQuantity, reads as 0.
        let value = go_big_int64(unscaled);
        let divide = 10_i64.pow(u32::try_from(dif).map_err(|_| Problem::MilliOverflow)?);
        let result = value / divide;
        return Ok(if value % divide != 0 {
            result + 1
        } else {
            result
        });
    }
    // big.Int.DivMod is Euclidean: the quotient is the floor for a positive divisor.
    let (quotient, remainder) = match pow10(dif) {
        Some(divisor) => (unscaled.div_euclid(divisor), unscaled.rem_euclid(divisor)),
        // 10^dif beyond i128 exceeds |unscaled| (which is not zero here).
        None => (if unscaled < 0 { -1 } else { 0 }, 1),
    };
    let result = if remainder != 0 {
        quotient + 1
    } else {
        quotient
    };
    i64::try_from(result).map_err(|_| Problem::MilliOverflow)
}

/// Go's `big.Int.Int64()`: the low 64 bits of |x|, negated for a negative x. Documented as
/// undefined out of range; this is what math/big computes on every platform.
// Port of Int.Int64 and low64 (math/big/int.go)
#[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
fn go_big_int64(x: i128) -> i64 {
    let low = x.unsigned_abs() as u64 as i64;
    if x < 0 { low.wrapping_neg() } else { low }
}

/// Go's `pow10tab`, `pow10postab32`, `pow10negtab32` (math/pow10.go).
const POW10_TAB: [f64; 32] = [
    1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
];
const POW10_POS_TAB32: [f64; 10] = [
    1e00, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
];
const POW10_NEG_TAB32: [f64; 11] = [
    1e-00, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
];

/// 10^n exactly as Go computes it: a table product for n ≥ 0, a table quotient for n < 0.
// Port of math.Pow10 (Go math/pow10.go)
fn go_pow10(n: i32) -> f64 {
    let split = |m: u32| (m / 32, m % 32);
    if (0..=308).contains(&n) {
        let (high, low) = split(n.unsigned_abs());
        let high = POW10_POS_TAB32
            .get(high as usize)
            .copied()
            .unwrap_or(f64::INFINITY);
        let low = POW10_TAB
            .get(low as usize)
            .copied()
            .unwrap_or(f64::INFINITY);
        return high * low;
    }
    if (-323..=0).contains(&n) {
        let (high, low) = split(n.unsigned_abs());
        let high = POW10_NEG_TAB32.get(high as usize).copied().unwrap_or(0.0);
        let low = POW10_TAB
            .get(low as usize)
            .copied()
            .unwrap_or(f64::INFINITY);
        return high / low;
    }
    if n > 0 { f64::INFINITY } else { 0.0 }
}

// Port of buildQuantity (horizontal.go): the format of status.currentMetrics values.
/// Memory is shown BinarySI, every other resource DecimalSI.
pub fn build_quantity_format(resource: &str) -> Format {
    if resource == "memory" {
        Format::BinarySI
    } else {
        Format::DecimalSI
    }
}

/// A quantity for a sentence, every value of one resource in one unit: memory in binary units
/// (`memory_words`: `3678Mi`, `~1.5Gi`, never raw bytes or milli-bytes); cpu in millicores
/// (`2400m over 3000m`, never `2400m over 3`); anything else (a custom or external metric's
/// value, `""`) as a plain decimal (`16.001–22`, `0.866`). The JSON keeps `buildQuantity`'s form.
pub fn human_quantity(resource: &str, milli: i64) -> String {
    match resource {
        "memory" => memory_words(milli),
        "cpu" => format!("{milli}m"),
        _ => plain_decimal(milli),
    }
}

/// Milli-units as a plain decimal, at most three decimals: `16001` → `16.001`, `866` → `0.866`.
pub fn plain_decimal(milli: i64) -> String {
    let sign = if milli < 0 { "-" } else { "" };
    let a = milli.unsigned_abs();
    let (whole, fraction) = (a / 1000, a % 1000);
    if fraction == 0 {
        format!("{sign}{whole}")
    } else {
        trim_decimals(&format!("{sign}{whole}.{fraction:03}"))
    }
}

/// Memory for a sentence: the largest binary unit it reaches, at most two decimals (`112.5Mi`,
/// `1.5Gi`, `512Ki`; below 1Ki, bytes). A value one milli-byte above such a number, as a band's
/// first value past an exclusive edge is, reads as `above` it; any other value that does not fit
/// two decimals is rounded and marked `~`. The JSON keeps the exact quantity.
pub fn memory_words(milli: i64) -> String {
    if let Some(exact) = binary_exact(milli) {
        return exact;
    }
    if let Some(exact) = milli.checked_sub(1).and_then(binary_exact) {
        return format!("above {exact}");
    }
    #[allow(clippy::cast_precision_loss)]
    let bytes = milli as f64 / 1000.0;
    let (suffix, size) = binary_unit(milli);
    #[allow(clippy::cast_precision_loss)]
    let value = bytes / size as f64;
    format!("~{}{suffix}", trim_decimals(&format!("{value:.2}")))
}

const BINARY_UNITS: [(&str, i64); 5] = [
    ("Pi", 1 << 50),
    ("Ti", 1 << 40),
    ("Gi", 1 << 30),
    ("Mi", 1 << 20),
    ("Ki", 1 << 10),
];

/// The largest binary unit `milli` reaches: (suffix, bytes).
fn binary_unit(milli: i64) -> (&'static str, i64) {
    let bytes = milli / 1000;
    (BINARY_UNITS.into_iter())
        .find(|(_, size)| bytes >= *size)
        .unwrap_or(("", 1))
}

/// `milli` with at most two decimals in the largest unit it reaches where that is exact
/// (`3678Mi` rather than `~3.59Gi`); bytes only below 1Ki.
fn binary_exact(milli: i64) -> Option<String> {
    let (_, reached) = binary_unit(milli);
    let units = (BINARY_UNITS.into_iter()).filter(|(_, size)| *size <= reached);
    let candidates: Vec<(&str, i64)> = if reached == 1 {
        vec![("", 1)]
    } else {
        units.collect()
    };
    candidates.into_iter().find_map(|(suffix, size)| {
        // Hundredths of the unit, in milli-bytes.
        let step = i128::from(size) * 10;
        let hundredths = i128::from(milli).checked_div(step)?;
        (hundredths * step == i128::from(milli)).then(|| {
            let text = format!("{}.{:02}", hundredths / 100, hundredths % 100);
            format!("{}{suffix}", trim_decimals(&text))
        })
    })
}

fn trim_decimals(text: &str) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text.to_string()
    }
}

/// `buildQuantity(resource, milli).String()`.
pub fn build_quantity(resource: &str, milli: i64) -> String {
    format_milli(milli, build_quantity_format(resource))
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_plain_forms_read_as_quantity_parse_reads_them() {
        let numbers = [
            "0",
            "00",
            "1",
            "7",
            "250",
            "0250",
            "999",
            "1000",
            "123456789",
            "9223372036854775",
            "9223372036854776",
            "999999999999999999",
        ];
        let suffixes = ["", "m", "k", "M", "G", "T", "Ki", "Mi", "Gi", "Ti"];
        for n in numbers {
            for suffix in suffixes {
                let text = format!("{n}{suffix}");
                let slow = super::Quantity::parse(&text).and_then(|q| q.milli_value());
                match super::plain_milli(&text) {
                    Some(fast) => assert_eq!(slow.ok(), Some(fast), "{text}"),
                    None => assert!(slow.is_err(), "{text}: {slow:?} but no plain value"),
                }
            }
        }
        for other in [
            "1e3",
            "0.5",
            "-1",
            "+1",
            "1Pi",
            "1E",
            "m",
            "1 m",
            "1000000000000000000000",
        ] {
            assert_eq!(super::plain_milli(other), None, "{other}");
        }
    }

    #[test]
    fn a_sentence_keeps_one_unit_per_resource() {
        use super::human_quantity;
        assert_eq!(human_quantity("cpu", 2400), "2400m");
        assert_eq!(human_quantity("cpu", 3000), "3000m");
        assert_eq!(human_quantity("", 16_001), "16.001");
        assert_eq!(human_quantity("", 22_000), "22");
        assert_eq!(human_quantity("", 866), "0.866");
        assert_eq!(human_quantity("", -1500), "-1.5");
        assert_eq!(human_quantity("memory", 1_048_576_000 * 900), "900Mi");
    }

    #[test]
    fn memory_reads_in_binary_units_for_sentences() {
        let mi = 1_048_576_000; // 1Mi in milli-bytes
        assert_eq!(memory_words(165 * mi), "165Mi");
        assert_eq!(memory_words(225 * mi / 2), "112.5Mi");
        assert_eq!(memory_words(225 * mi / 2 + 1), "above 112.5Mi");
        assert_eq!(memory_words(1536 * mi), "1.5Gi");
        assert_eq!(memory_words(344_142_644_000), "~328.2Mi");
        assert_eq!(memory_words(512_000), "512");
        assert_eq!(memory_words(0), "0");
    }

    use super::*;

    fn served(text: &str) -> String {
        format_value(&Quantity::parse(text).unwrap())
    }

    #[test]
    fn parse_accepts_the_kubernetes_grammar_and_serves_the_canonical_form() {
        let cases = [
            ("0", "0"),
            ("250m", "250m"),
            ("1.5", "1500m"),
            (".5", "500m"),
            ("5.", "5."), // ParseQuantity keeps the text of an already-canonical number
            ("+1", "+1"),
            ("01", "01"),
            ("-500m", "-500m"),
            ("0.1", "100m"),
            ("0.05", "50m"),
            ("0.0001", "100u"),
            ("1000m", "1"),
            ("2000k", "2M"),
            ("512Mi", "512Mi"),
            ("1024Mi", "1Gi"),
            ("1.5Gi", "1536Mi"),
            ("0.5Gi", "512Mi"),
            ("0.0001Ki", "102400u"),
            ("1.1Ki", "1126400m"),
            ("1e3", "1e3"),
            ("1000e0", "1e3"),
            ("1E-2", "10e-3"),
            ("1e+3", "1e+3"),
            ("1.953125Ki", "2000"), // BinarySI, whole, no power of 1024: no suffix
            ("123456789n", "123456789n"),
            ("1.5n", "2n"),     // rounded away from zero to nano
            ("-1.5n", "-2n"),   // on the magnitude
            ("1e-400", "1e-9"), // far below nano still rounds up to one nano
            ("1000E", "1e21"),  // DecimalSI has no suffix above E
            ("1000000000000000000000000", "1e24"),
            ("1234567890123456789012", "1234567890123456789012"),
            ("8Ei", "9223372036854775807"), // BinarySI is capped at 2^63-1
            ("1e999999999", "1e999999999"),
        ];
        for (text, want) in cases {
            assert_eq!(served(text), want, "{text}");
        }
    }

    #[test]
    fn parse_accepts_what_parse_quantity_reads_as_zero() {
        // Go's scanner returns zero for a bare sign, a bare point or a bare suffix.
        for text in [
            "-", "+", ".", "-.", "m", "Ki", "e3", "00", "-0", "0.000", ".Ki",
        ] {
            let q = Quantity::parse(text).unwrap();
            assert_eq!(
                (format_value(&q), q.milli_value()),
                ("0".into(), Ok(0)),
                "{text}"
            );
        }
    }

    #[test]
    fn parse_refuses_what_parse_quantity_refuses() {
        let cases = [
            "", " ", " 1", "1 ", "1 m", "1.2.3", "10KB", "NaN", "Inf", "-Inf", "0x10", "1e", "e",
            "i", "1k5", "++1", "+-1", "1e3.5", "1e-", "1Ee3", "1mi", "1KiB", "1,5", "½", "1é",
            ".e-20", // only the inf.Dec path needs a digit
        ];
        for text in cases {
            let err = Quantity::parse(text).unwrap_err();
            assert_eq!(err.found, text);
            assert_eq!(
                err.problem, "a Kubernetes quantity such as 250m, 1.5 or 512Mi",
                "{text}"
            );
        }
    }

    #[test]
    fn parse_refuses_values_out_of_range_without_allocating_them() {
        let cases = [
            "1e1000000001".to_owned(),
            "1e-1000000001".to_owned(),
            "1e99999999999999999999".to_owned(),
            "1000e999999999".to_owned(), // canonical exponent 1000000002
            "9".repeat(10_000),
            format!("1{}", "0".repeat(10_000)),
            format!("{}e999999999", "1".repeat(20)),
        ];
        for text in cases {
            let err = Quantity::parse(&text).unwrap_err();
            assert!(err.problem.contains("out of range"), "{text}: {err}");
        }
    }

    #[test]
    fn parse_holds_long_but_representable_text_exactly() {
        let cases = [
            (format!("0.{}1", "0".repeat(10_000)), "1n"),
            (format!("1.{}", "0".repeat(10_000)), "1"),
            (format!("{}Ki", "9".repeat(10_000)), "9223372036854775807"),
        ];
        for (text, want) in cases {
            assert_eq!(served(&text), want);
        }
        // Leading zeros are stripped before the int64 fast path, which keeps the text as given.
        let zeros = format!("{}1", "0".repeat(10_000));
        assert_eq!(
            (served(&zeros), parse_milli(&zeros)),
            (zeros.clone(), Ok(1000))
        );
    }

    #[test]
    fn quantity_error_reads_found_then_expected() {
        let err = Quantity::parse("10KB").unwrap_err();
        assert_eq!(
            err.to_string(),
            "found \"10KB\", expected a Kubernetes quantity such as 250m, 1.5 or 512Mi"
        );
    }

    #[test]
    fn milli_value_rounds_up_like_scaled_value() {
        let cases = [
            ("1.0001m", 2),
            ("0.1", 100),
            ("100Mi", 104_857_600_000),
            ("1Gi", 1_073_741_824_000),
            ("123456789n", 124),
            ("1e3", 1_000_000),
            ("1m", 1),
            ("0.5m", 1),
            ("1n", 1),
            ("250m", 250),
            ("1.5", 1500),
            ("0", 0),
            ("9223372036854775807m", i64::MAX),
            ("9223372036854775.807", i64::MAX),
            ("1234567890123456789012n", 1_234_567_890_123_457),
        ];
        for (text, want) in cases {
            assert_eq!(parse_milli(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn milli_value_rounds_negative_int64_amounts_away_from_zero() {
        // negativeScaleInt64 (math.go) on the served form.
        let cases = [
            ("-1.5m", -2),
            ("-0.5m", -1),
            ("-123456789n", -124),
            ("-1m", -1),
            ("-1.5", -1500),
            ("-0.0000000015", -1),    // served as "-2n"
            ("-1.0000000001", -1001), // served as "-1000000001n"
        ];
        for (text, want) in cases {
            assert_eq!(parse_milli(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn scaled_value_of_an_inf_dec_truncates_then_adds_one() {
        // The controller never holds these (served forms are int64Amounts when small), but
        // scaledValue (scale_int.go) is ported as written: -1.5m → -1 + 1 = 0.
        assert_eq!(scaled_value(-1_500_000_000, 9, 3), Ok(-1_500));
        assert_eq!(scaled_value(-1_500_000, 9, 3), Ok(0));
        assert_eq!(scaled_value(-1_000_000_001, 9, 3), Ok(-999));
        assert_eq!(scaled_value(1_000_000_001, 9, 3), Ok(1_001));
        assert_eq!(
            scaled_value(i128::from(i64::MAX) * 1_000_000, 9, 3),
            Ok(i64::MAX)
        );
        assert_eq!(scaled_value(-5, 40, 3), Ok(0)); // floor(-5e-40) + 1
        assert_eq!(scaled_value(5, 40, 3), Ok(1));
        // Below i64::MIN the fast path reads big.Int.Int64()'s low 64 bits: 5 × 2^64 is 0.
        assert_eq!(scaled_value(i128::from(i64::MIN) * 10, 9, 3), Ok(0));
    }

    #[test]
    fn milli_value_overflow_is_an_error_not_a_wrapped_number() {
        let cases = [
            ("9223372036854775808m", Problem::MilliOverflow),
            ("9223372036854776", Problem::MilliOverflow),
            ("8Ei", Problem::MilliOverflow),
            ("1e999999999", Problem::MilliOverflow),
            ("1E", Problem::MilliOverflow),
            ("-9223372036854776", Problem::MilliOverflow),
        ];
        for (text, problem) in cases {
            let err = parse_milli(text).unwrap_err();
            assert_eq!(
                (err.found.as_str(), err.problem),
                (text, problem.expected().into())
            );
        }
        assert_eq!(
            Problem::MilliOverflow.expected(),
            "a quantity whose milli-value fits in 64 bits"
        );
    }

    /// A 19-digit negative is an inf.Dec, rounded to nano-units (×10^6 here); MilliValue's fast
    /// path then reads it through big.Int.Int64(): the low 64 bits, as the controller gets them.
    #[test]
    fn the_largest_negative_quantities_read_as_go_reads_them() {
        assert_eq!(parse_milli("-9223372036854775808m"), Ok(0));
        assert_eq!(parse_milli("-9223372036854775807m"), Ok(1));
        assert_eq!(
            parse_milli("-922337203685477580m"),
            Ok(-922_337_203_685_477_580)
        );
    }

    #[test]
    fn approximate_float_uses_the_served_form_and_go_pow10() {
        let cases = [
            ("0.1", 0.1),                    // served 100m: 100 × (1/1000)
            ("0.009", 0.009000000000000001), // served 9m: 9 × (1/1000)
            ("0.05", 0.05),
            ("-0.009", -0.009000000000000001),
            ("1.5", 1.5),
            ("100Mi", 104_857_600.0),
            ("1e-400", 1.0 / 1e9),
            ("0", 0.0),
            ("1e999999999", f64::INFINITY),
            ("-1e999999999", f64::NEG_INFINITY),
        ];
        for (text, want) in cases {
            let got = Quantity::parse(text).unwrap().as_approximate_f64();
            assert_eq!(got.to_bits(), want.to_bits(), "{text}: {got:?}");
        }
        // The nearest double to 0.009 is not what Kubernetes computes.
        assert_ne!(0.009_f64, 0.009000000000000001);
    }

    #[test]
    fn go_pow10_divides_for_negative_exponents() {
        let cases = [
            (0, 1.0),
            (3, 1000.0),
            (35, 1e32 * 1e3),
            (308, 1e288 * 1e20),
            (309, f64::INFINITY),
            (-3, 1.0 / 1000.0),
            (-9, 1.0 / 1e9),
            (-35, 1e-32 / 1e3),
            (-323, 1e-320 / 1e3),
            (-324, 0.0),
            (i32::MIN, 0.0),
            (i32::MAX, f64::INFINITY),
        ];
        for (n, want) in cases {
            assert_eq!(go_pow10(n).to_bits(), f64::to_bits(want), "{n}");
        }
    }

    #[test]
    fn human_quantities_give_memory_in_bytes_never_milli_bytes() {
        let mib = 1024 * 1024 * 1000;
        assert_eq!(human_quantity("memory", 3678 * mib), "3678Mi");
        assert_eq!(human_quantity("memory", 3678 * mib + 500), "~3.59Gi");
        assert_eq!(build_quantity("memory", 3678 * mib + 500), "3856662528500m");
        assert_eq!(human_quantity("cpu", 250), "250m");
    }

    #[test]
    fn format_milli_prints_new_milli_quantity_string() {
        use Format::{BinarySI, DecimalExponent, DecimalSI};
        let cases = [
            (1000, DecimalSI, "1"),
            (1500, DecimalSI, "1500m"),
            (300, DecimalSI, "300m"),
            (0, DecimalSI, "0"),
            (2_000_000, DecimalSI, "2k"),
            (i64::MAX, DecimalSI, "9223372036854775807m"),
            (i64::MIN, DecimalSI, "-9223372036854775808m"),
            (-500, DecimalSI, "-500m"),
            (10, DecimalSI, "10m"),
            (1_000_000_000_000_000_000, DecimalSI, "1P"),
            // BinarySI: below 1024, or not a whole number, falls back to DecimalSI.
            (1_073_741_824_000, BinarySI, "1Gi"),
            (-1_073_741_824_000, BinarySI, "-1Gi"),
            (1000, BinarySI, "1"),
            (1_023_000, BinarySI, "1023"),
            (1_024_000, BinarySI, "1Ki"),
            (1_500, BinarySI, "1500m"),
            (2_048_500, BinarySI, "2048500m"),
            (2_000_000, BinarySI, "2000"),
            (1_610_612_736_000, BinarySI, "1536Mi"),
            (0, BinarySI, "0"),
            (1500, DecimalExponent, "1500e-3"),
            (2_000_000, DecimalExponent, "2e3"),
            (1000, DecimalExponent, "1"),
        ];
        for (milli, format, want) in cases {
            assert_eq!(format_milli(milli, format), want, "{milli} {format:?}");
        }
    }

    #[test]
    fn format_value_and_display_print_the_served_string() {
        let q = Quantity::parse("0.5").unwrap();
        assert_eq!(
            (format_value(&q), q.to_string()),
            ("500m".into(), "500m".into())
        );
    }

    #[test]
    fn parse_holds_the_served_form_representation() {
        let cases = [
            ("0.1", 100, -3, Format::DecimalSI, Repr::Int64),
            ("1Gi", 1_073_741_824, 0, Format::BinarySI, Repr::Int64),
            ("1e3", 1, 3, Format::DecimalExponent, Repr::Int64),
            (
                "8Ei",
                i128::from(i64::MAX) * 1_000_000_000,
                -9,
                Format::DecimalSI,
                Repr::Dec,
            ),
            (
                "1Pi",
                1_125_899_906_842_624_000_000_000,
                -9,
                Format::BinarySI,
                Repr::Dec,
            ),
        ];
        for (text, mantissa, exponent, format, repr) in cases {
            let q = Quantity::parse(text).unwrap();
            assert_eq!(
                (q.mantissa, q.exponent, q.format, q.repr),
                (mantissa, exponent, format, repr)
            );
        }
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// A generated quantity text and its exact value as numerator / 10^frac_len.
        fn decimal_text() -> impl Strategy<Value = (String, i128, u32, String)> {
            let suffixes = prop::sample::select(vec![
                "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi",
                "Ei", "e3", "e-2", "E-9", "e12", "e0", "E-12",
            ]);
            ("[0-9]{1,12}", prop::option::of("[0-9]{0,9}"), suffixes).prop_map(
                |(int, frac, suffix)| {
                    let frac_digits = frac.clone().unwrap_or_default();
                    let digits: i128 = format!("{int}{frac_digits}").parse().unwrap();
                    let text = match &frac {
                        Some(f) => format!("{int}.{f}{suffix}"),
                        None => format!("{int}{suffix}"),
                    };
                    let frac_len = u32::try_from(frac_digits.len()).unwrap();
                    (text, digits, frac_len, suffix.to_owned())
                },
            )
        }

        /// ceil(digits × suffix × 1000 / 10^frac_len) in i128, or None when it cannot fit i64.
        fn expected_milli(digits: i128, frac_len: u32, suffix: &str) -> Option<i64> {
            let (multiplier, exponent): (i128, i32) = match suffix {
                "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => {
                    let power = match suffix {
                        "Ki" => 10,
                        "Mi" => 20,
                        "Gi" => 30,
                        "Ti" => 40,
                        "Pi" => 50,
                        _ => 60,
                    };
                    (1 << power, 0)
                }
                "" => (1, 0),
                "n" => (1, -9),
                "u" => (1, -6),
                "m" => (1, -3),
                "k" => (1, 3),
                "M" => (1, 6),
                "G" => (1, 9),
                "T" => (1, 12),
                "P" => (1, 15),
                "E" => (1, 18),
                e => (1, e[1..].parse().unwrap()),
            };
            // value × 1000 = digits × multiplier × 10^(exponent + 3) / 10^frac_len
            let up = exponent + 3;
            let mut numerator = digits.checked_mul(multiplier)?;
            let mut denominator = 10_i128.pow(frac_len);
            if up >= 0 {
                numerator = numerator.checked_mul(10_i128.checked_pow(up.unsigned_abs())?)?;
            } else {
                denominator *= 10_i128.pow(up.unsigned_abs());
            }
            let ceil = numerator / denominator + i128::from(numerator % denominator != 0);
            i64::try_from(ceil).ok()
        }

        proptest! {
            #[test]
            fn decimal_si_format_round_trips_through_milli_value(
                milli in -999_999_999_999_999_999_i64..=i64::MAX,
            ) {
                let text = format_milli(milli, Format::DecimalSI);
                prop_assert_eq!(parse_milli(&text), Ok(milli), "{}", text);
            }

            #[test]
            fn binary_si_format_round_trips_through_milli_value(milli in 0..=i64::MAX) {
                let text = format_milli(milli, Format::BinarySI);
                prop_assert_eq!(parse_milli(&text), Ok(milli), "{}", text);
            }

            #[test]
            fn milli_value_is_the_ceiling_of_the_exact_value(
                (text, digits, frac_len, suffix) in decimal_text(),
            ) {
                let got = parse_milli(&text).ok();
                prop_assert_eq!(got, expected_milli(digits, frac_len, &suffix), "{}", text);
            }

            #[test]
            fn negative_milli_value_rounds_away_from_zero(
                int in "[0-9]{1,9}",
                frac in "[0-9]{0,6}",
                suffix in prop::sample::select(vec!["", "n", "u", "m", "k", "M", "G", "e-2", "E3"]),
            ) {
                let text = format!("-{int}.{frac}{suffix}");
                let digits: i128 = format!("{int}{frac}").parse().unwrap();
                let frac_len = u32::try_from(frac.len()).unwrap();
                let want = expected_milli(digits, frac_len, suffix).map(|m| -m);
                prop_assert_eq!(parse_milli(&text).ok(), want, "{}", text);
            }

            #[test]
            fn arbitrary_text_never_panics(text in any::<String>()) {
                if let Ok(q) = Quantity::parse(&text) {
                    let _ = (q.milli_value(), q.as_approximate_f64());
                }
            }

            #[test]
            fn quantity_shaped_text_never_panics_and_serves_a_fixed_point(
                text in "[-+]?[0-9.]{0,40}[eEinumkKMGTP]{0,3}[-+]?[0-9]{0,12}",
            ) {
                if let Ok(q) = Quantity::parse(&text) {
                    let _ = q.as_approximate_f64();
                    // Serving the served text again keeps the value (not always the text:
                    // BinarySI "2000" is served again as DecimalSI "2k").
                    let again = Quantity::parse(&format_value(&q)).unwrap();
                    let exact = |q: &Quantity| {
                        let (m, times) = remove_factors(q.mantissa, 10);
                        (m, i64::from(q.exponent) + i64::from(times))
                    };
                    prop_assert_eq!(exact(&again), exact(&q));
                    prop_assert_eq!(again.milli_value().ok(), q.milli_value().ok());
                }
            }
        }
    }
}
