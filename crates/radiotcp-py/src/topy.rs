//! A serde `Serializer` that builds plain Python objects (dict, list, float, int, str, None).
//!
//! Going through JSON would turn NaN (e.g. the delay of a flow that delivered nothing) into
//! `null`; building the objects directly keeps floats as floats and follows new fields of the
//! core's result types without changes here.

use std::fmt;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::IntoPyObjectExt;
use serde::ser::{self, Serialize};

/// Serialisation failure; only Python-side allocation errors or unsupported key types.
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

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error(e.to_string())
    }
}

type Res<'py> = Result<Bound<'py, PyAny>, Error>;

/// Convert any `Serialize` value into a Python object.
pub fn to_py<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    value
        .serialize(PySer { py })
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.0))
}

#[derive(Clone, Copy)]
struct PySer<'py> {
    py: Python<'py>,
}

impl<'py> PySer<'py> {
    fn any<T: IntoPyObject<'py>>(self, v: T) -> Res<'py> {
        Ok(v.into_bound_py_any(self.py)?)
    }
}

pub struct Seq<'py> {
    py: Python<'py>,
    items: Bound<'py, PyList>,
    /// For tuple variants: wrap as `{variant: [...]}`.
    variant: Option<&'static str>,
}

pub struct Map<'py> {
    py: Python<'py>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
    /// For struct variants: wrap as `{variant: {...}}`.
    variant: Option<&'static str>,
}

fn wrap_variant<'py>(
    py: Python<'py>,
    variant: Option<&'static str>,
    v: Bound<'py, PyAny>,
) -> Res<'py> {
    match variant {
        None => Ok(v),
        Some(name) => {
            let d = PyDict::new(py);
            d.set_item(name, v)?;
            Ok(d.into_any())
        }
    }
}

impl<'py> ser::Serializer for PySer<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    type SerializeSeq = Seq<'py>;
    type SerializeTuple = Seq<'py>;
    type SerializeTupleStruct = Seq<'py>;
    type SerializeTupleVariant = Seq<'py>;
    type SerializeMap = Map<'py>;
    type SerializeStruct = Map<'py>;
    type SerializeStructVariant = Map<'py>;

    fn serialize_bool(self, v: bool) -> Res<'py> {
        self.any(v)
    }
    fn serialize_i8(self, v: i8) -> Res<'py> {
        self.any(v)
    }
    fn serialize_i16(self, v: i16) -> Res<'py> {
        self.any(v)
    }
    fn serialize_i32(self, v: i32) -> Res<'py> {
        self.any(v)
    }
    fn serialize_i64(self, v: i64) -> Res<'py> {
        self.any(v)
    }
    fn serialize_i128(self, v: i128) -> Res<'py> {
        self.any(v)
    }
    fn serialize_u8(self, v: u8) -> Res<'py> {
        self.any(v)
    }
    fn serialize_u16(self, v: u16) -> Res<'py> {
        self.any(v)
    }
    fn serialize_u32(self, v: u32) -> Res<'py> {
        self.any(v)
    }
    fn serialize_u64(self, v: u64) -> Res<'py> {
        self.any(v)
    }
    fn serialize_u128(self, v: u128) -> Res<'py> {
        self.any(v)
    }
    fn serialize_f32(self, v: f32) -> Res<'py> {
        self.any(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Res<'py> {
        self.any(v)
    }
    fn serialize_char(self, v: char) -> Res<'py> {
        self.any(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Res<'py> {
        self.any(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Res<'py> {
        self.any(v.to_vec())
    }
    fn serialize_none(self) -> Res<'py> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Res<'py> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Res<'py> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Res<'py> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Res<'py> {
        self.any(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Res<'py> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Res<'py> {
        let inner = value.serialize(self)?;
        wrap_variant(self.py, Some(variant), inner)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'py>, Error> {
        Ok(Seq {
            py: self.py,
            items: PyList::empty(self.py),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq<'py>, Error> {
        let mut s = self.serialize_seq(Some(len))?;
        s.variant = Some(variant);
        Ok(s)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'py>, Error> {
        Ok(Map {
            py: self.py,
            dict: PyDict::new(self.py),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Map<'py>, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Map<'py>, Error> {
        let mut m = self.serialize_map(Some(len))?;
        m.variant = Some(variant);
        Ok(m)
    }
}

impl<'py> Seq<'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let v = value.serialize(PySer { py: self.py })?;
        self.items.append(v)?;
        Ok(())
    }
    fn done(self) -> Res<'py> {
        wrap_variant(self.py, self.variant, self.items.into_any())
    }
}

impl<'py> ser::SerializeSeq for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Res<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeTuple for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Res<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeTupleStruct for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Res<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeTupleVariant for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Res<'py> {
        self.done()
    }
}

impl<'py> Map<'py> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let v = value.serialize(PySer { py: self.py })?;
        self.dict.set_item(key, v)?;
        Ok(())
    }
    fn done(self) -> Res<'py> {
        wrap_variant(self.py, self.variant, self.dict.into_any())
    }
}

impl<'py> ser::SerializeMap for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(PySer { py: self.py })?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error("map value without a key".into()))?;
        let v = value.serialize(PySer { py: self.py })?;
        self.dict.set_item(key, v)?;
        Ok(())
    }
    fn end(self) -> Res<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeStruct for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value)
    }
    fn end(self) -> Res<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeStructVariant for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value)
    }
    fn end(self) -> Res<'py> {
        self.done()
    }
}
