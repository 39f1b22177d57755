//! Exact Kubernetes quantities (`resource.Quantity`): parsing to integer milli-units the way
//! `MilliValue()` does (rounding up), the float conversion `AsApproximateFloat64()` uses, and
//! canonical formatting as `Quantity.String()` prints it.
//!
//! STUB: the interface is fixed; the bodies are being written.

use std::fmt;

/// `resource.Format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    DecimalSI,
    BinarySI,
    DecimalExponent,
}

/// A parsed quantity: exact decimal value and the format its suffix implies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quantity {
    /// value = mantissa × 10^exponent, exactly.
    pub mantissa: i128,
    pub exponent: i32,
    pub format: Format,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantityError {
    pub found: String,
    pub problem: String,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "found \"{}\", expected {}", self.found, self.problem)
    }
}

impl std::error::Error for QuantityError {}

impl Quantity {
    pub fn parse(text: &str) -> Result<Quantity, QuantityError> {
        let _ = text;
        todo!("quantity parser")
    }

    /// `Quantity.MilliValue()`: ceil(q × 1000); an overflow of int64 is an error.
    pub fn milli_value(&self) -> Result<i64, QuantityError> {
        todo!("milli value")
    }

    /// `Quantity.AsApproximateFloat64()` applied to the canonical form.
    pub fn as_approximate_f64(&self) -> f64 {
        todo!("approximate float")
    }
}

/// Parses and returns `MilliValue()`.
pub fn parse_milli(text: &str) -> Result<i64, QuantityError> {
    Quantity::parse(text)?.milli_value()
}

/// `resource.NewMilliQuantity(milli, format).String()`.
pub fn format_milli(milli: i64, format: Format) -> String {
    let _ = (milli, format);
    todo!("format")
}
