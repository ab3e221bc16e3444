//! The one shape of an answer with several parts: a `byte[]` of fields, each a
//! big-endian `i32` length then that many bytes, and `-1` for an absent field.
//! Java reads it with `Fields.read` (the only reader).

/// Fields being written.
#[derive(Default)]
pub struct Fields(Vec<u8>);

impl Fields {
    /// Adds a field.
    pub fn text(mut self, bytes: impl AsRef<[u8]>) -> Fields {
        let bytes = bytes.as_ref();
        // Every field is a name, a key or a number's text: far below 2 GiB.
        self.0.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
        self.0.extend_from_slice(bytes);
        self
    }

    /// Adds a field that may be absent.
    pub fn optional(self, bytes: Option<impl AsRef<[u8]>>) -> Fields {
        match bytes {
            Some(b) => self.text(b),
            None => {
                let mut fields = self;
                fields.0.extend_from_slice(&(-1i32).to_be_bytes());
                fields
            }
        }
    }

    /// Adds a number as its decimal text.
    pub fn number(self, n: impl core::fmt::Display) -> Fields {
        self.text(n.to_string())
    }

    /// The bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}
