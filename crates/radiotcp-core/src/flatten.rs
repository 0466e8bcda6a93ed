//! A serde serializer that flattens a statistics struct into (field, value) pairs in
//! declaration order: numbers become metrics (NaN and infinities kept), `None` is no metric,
//! a map named `drops` is drops by reason, and names and other non-numeric fields are skipped.
//! With it a statistic is declared once, as a field, and reaches the flat metrics by itself.

use std::fmt;

use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};

/// (name, value) pairs.
pub type Metrics = Vec<(String, f64)>;

/// The numeric fields of `stats` and the entries of its `drops` map.
pub fn fields(stats: &impl Serialize) -> (Metrics, Metrics) {
    let mut out = Flat::default();
    // Only a non-struct top level fails, and then there is nothing to report.
    let _ = stats.serialize(&mut out);
    (out.nums, out.drops)
}

#[derive(Default)]
struct Flat {
    nums: Metrics,
    drops: Metrics,
}

#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

fn unsupported<T>() -> Result<T, Error> {
    Err(Error("only structs flatten into metrics".into()))
}

/// Serializer of the top level: a struct (or the map serde's `flatten` produces).
impl<'a> Serializer for &'a mut Flat {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = FieldsOf<'a>;
    type SerializeStruct = FieldsOf<'a>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<FieldsOf<'a>, Error> {
        Ok(FieldsOf {
            flat: self,
            key: None,
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<FieldsOf<'a>, Error> {
        Ok(FieldsOf {
            flat: self,
            key: None,
        })
    }
    fn serialize_bool(self, _: bool) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_i8(self, _: i8) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_i16(self, _: i16) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_i32(self, _: i32) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_i64(self, _: i64) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_u8(self, _: u8) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_u16(self, _: u16) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_u32(self, _: u32) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_u64(self, _: u64) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_f32(self, _: f32) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_f64(self, _: f64) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_char(self, _: char) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_str(self, _: &str) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_none(self) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        unsupported()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        unsupported()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        unsupported()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        unsupported()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        unsupported()
    }
}

/// The fields of the top-level struct.
pub struct FieldsOf<'a> {
    flat: &'a mut Flat,
    /// For the map form: the key of the entry whose value comes next.
    key: Option<String>,
}

impl FieldsOf<'_> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        if key == "drops" {
            let mut d = Drops {
                out: &mut self.flat.drops,
                key: None,
            };
            let _ = value.serialize(&mut d);
        } else if let Some(v) = value.serialize(Number).ok().flatten() {
            self.flat.nums.push((key.to_string(), v));
        }
    }
}

impl SerializeStruct for FieldsOf<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value);
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl SerializeMap for FieldsOf<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = key.serialize(Name).ok();
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        if let Some(k) = self.key.take() {
            self.field(&k, value);
        }
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

/// The entries of a `drops` map.
struct Drops<'a> {
    out: &'a mut Metrics,
    key: Option<String>,
}

impl Serializer for &mut Drops<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Self;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_map(self, _: Option<usize>) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_bool(self, _: bool) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_i8(self, _: i8) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_i16(self, _: i16) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_i32(self, _: i32) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_i64(self, _: i64) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_u8(self, _: u8) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_u16(self, _: u16) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_u32(self, _: u32) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_u64(self, _: u64) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_f32(self, _: f32) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_f64(self, _: f64) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_char(self, _: char) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_str(self, _: &str) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_none(self) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        unsupported()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        unsupported()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        unsupported()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        unsupported()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        unsupported()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        unsupported()
    }
}

impl SerializeMap for &mut Drops<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = key.serialize(Name).ok();
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        if let (Some(k), Ok(Some(v))) = (self.key.take(), value.serialize(Number)) {
            self.out.push((k, v));
        }
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

macro_rules! number_or_skip {
    ($($method:ident: $t:ty),*) => {
        $(fn $method(self, v: $t) -> Result<Option<f64>, Error> {
            Ok(Some(v as f64))
        })*
    };
}

macro_rules! skip {
    ($($method:ident: $t:ty),*) => {
        $(fn $method(self, _: $t) -> Result<Option<f64>, Error> {
            Ok(None)
        })*
    };
}

/// A field's value as a metric: `Some(number)`, or `None` for anything else.
struct Number;

impl Serializer for Number {
    type Ok = Option<f64>;
    type Error = Error;
    type SerializeSeq = Impossible<Option<f64>, Error>;
    type SerializeTuple = Impossible<Option<f64>, Error>;
    type SerializeTupleStruct = Impossible<Option<f64>, Error>;
    type SerializeTupleVariant = Impossible<Option<f64>, Error>;
    type SerializeMap = Impossible<Option<f64>, Error>;
    type SerializeStruct = Impossible<Option<f64>, Error>;
    type SerializeStructVariant = Impossible<Option<f64>, Error>;

    number_or_skip!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_f32: f32, serialize_f64: f64);
    skip!(serialize_bool: bool, serialize_char: char, serialize_str: &str,
        serialize_bytes: &[u8], serialize_unit_struct: &'static str);

    fn serialize_none(self) -> Result<Option<f64>, Error> {
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Option<f64>, Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Option<f64>, Error> {
        Ok(None)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<Option<f64>, Error> {
        Ok(None)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Option<f64>, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Option<f64>, Error> {
        Ok(None)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        unsupported()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        unsupported()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        unsupported()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        unsupported()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        unsupported()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        unsupported()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        unsupported()
    }
}

/// A map key as a string.
struct Name;

impl Serializer for Name {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Impossible<String, Error>;
    type SerializeTuple = Impossible<String, Error>;
    type SerializeTupleStruct = Impossible<String, Error>;
    type SerializeTupleVariant = Impossible<String, Error>;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    type SerializeStructVariant = Impossible<String, Error>;

    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_bool(self, _: bool) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_i8(self, _: i8) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_i16(self, _: i16) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_i32(self, _: i32) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_i64(self, _: i64) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_u8(self, _: u8) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_u16(self, _: u16) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_u32(self, _: u32) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_u64(self, _: u64) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_f32(self, _: f32) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_f64(self, _: f64) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_char(self, _: char) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_none(self) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<String, Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        v: &'static str,
    ) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<String, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, Error> {
        unsupported()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        unsupported()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        unsupported()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        unsupported()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        unsupported()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        unsupported()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        unsupported()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        unsupported()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;

    use super::fields;

    #[derive(Serialize)]
    struct S {
        name: String,
        drops: BTreeMap<String, u64>,
        a: u64,
        b: f64,
        c: Option<u32>,
        d: Option<u32>,
        e: f64,
    }

    #[test]
    fn numbers_in_order_none_skipped_nan_and_inf_kept() {
        let s = S {
            name: "x".into(),
            drops: [("z".to_string(), 2), ("y".to_string(), 1)].into(),
            a: 3,
            b: f64::NAN,
            c: None,
            d: Some(7),
            e: f64::INFINITY,
        };
        let (nums, drops) = fields(&s);
        let names: Vec<&str> = nums.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["a", "b", "d", "e"]);
        assert!(nums[1].1.is_nan());
        assert_eq!(nums[3].1, f64::INFINITY);
        assert_eq!(drops, vec![("y".to_string(), 1.0), ("z".to_string(), 2.0)]);
    }
}
