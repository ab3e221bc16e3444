//! The families of per-queue keys (`emq-keyspace/2`): every type of key the
//! bus writes under `emq:{Q}:`, as one table. A type is written the way the
//! bus writes it (`"pending"`, `"g:vip:pending"`, `"job:JOB0KHTOWnGLuC:lock"`)
//! and matched against the table; adding a family is adding a row.

use crate::codec::decode;
use crate::error::{Error, Gate, Result};

/// The longest name parameter (a group, a dedupe id, a repeat or stream name), in bytes.
///
/// ```
/// assert!(emq_id::check_name(&[b'n'; emq_id::MAX_NAME_LEN]).is_ok());
/// assert!(emq_id::check_name(&[b'n'; emq_id::MAX_NAME_LEN + 1]).is_err());
/// ```
pub const MAX_NAME_LEN: usize = 128;

/// The namespace a job key's id must carry.
///
/// ```
/// assert!(emq_id::job_key(b"orders", &emq_id::Id::new(emq_id::JOB_NS, 1).unwrap().to_bytes()).is_ok());
/// ```
pub const JOB_NS: &[u8; 3] = b"JOB";

/// What a family's key carries between its fixed head and tail.
///
/// ```
/// use emq_id::{Family, Param};
/// let params = [b"pending".as_slice(), b"g:vip:pending", b"job:JOB0KHTOWnGLuC"].map(|t| Family::of_type(t).unwrap().0.param());
/// assert_eq!(params, [Param::None, Param::Name, Param::JobId]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// Nothing: the type is the family's name (`pending`).
    None,
    /// A name: 1–128 bytes of `[A-Za-z0-9_.-]` (no `:`, so every key parses back).
    Name,
    /// A branded id of namespace `JOB`.
    JobId,
}

/// One family of keys: `emq:{Q}:` + head + parameter + tail.
///
/// ```
/// let (family, _) = emq_id::Family::of_type(b"stream:audit:archived").unwrap();
/// assert_eq!(family.pattern().to_string(), "stream:<name>:archived");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Family {
    head: &'static str,
    param: Param,
    tail: &'static str,
}

const fn fixed(name: &'static str) -> Family {
    Family { head: name, param: Param::None, tail: "" }
}

const fn named(head: &'static str, tail: &'static str) -> Family {
    Family { head, param: Param::Name, tail }
}

const fn job(tail: &'static str) -> Family {
    Family { head: "job:", param: Param::JobId, tail }
}

impl Family {
    /// Every family of the bus's per-queue keys. Rows are only ever added at
    /// the end: the C ABI names a family by its index.
    ///
    /// ```
    /// use emq_id::Family;
    /// assert_eq!(Family::ALL[0], Family::of_type(b"pending").unwrap().0);
    /// assert!(Family::ALL.iter().all(|f| !f.head().is_empty()));
    /// ```
    pub const ALL: &'static [Family] = &[
        fixed("pending"),
        fixed("active"),
        fixed("schedule"),
        fixed("dead"),
        fixed("ring"),
        fixed("wake"),
        fixed("meta"),
        fixed("paused"),
        fixed("repeat"),
        fixed("gactive"),
        fixed("glimit"),
        fixed("gweight"),
        fixed("limiter"),
        fixed("events"),
        fixed("flow:outbox"),
        fixed("metrics:completed"),
        fixed("metrics:completed:data"),
        fixed("metrics:failed"),
        fixed("metrics:failed:data"),
        named("g:", ":pending"),
        named("de:", ""),
        named("repeat:", ""),
        named("stream:", ""),
        named("stream:", ":archived"),
        job(""),
        job(":lock"),
        job(":logs"),
    ];

    /// The type's fixed bytes before the parameter (the whole type for a fixed family).
    ///
    /// ```
    /// assert_eq!(emq_id::Family::of_type(b"g:vip:pending").unwrap().0.head(), "g:");
    /// ```
    pub const fn head(&self) -> &'static str {
        self.head
    }

    /// What the family's keys carry.
    ///
    /// ```
    /// assert_eq!(emq_id::Family::of_type(b"de:abc").unwrap().0.param(), emq_id::Param::Name);
    /// ```
    pub const fn param(&self) -> Param {
        self.param
    }

    /// The type's fixed bytes after the parameter.
    ///
    /// ```
    /// assert_eq!(emq_id::Family::of_type(b"job:JOB0KHTOWnGLuC:logs").unwrap().0.tail(), ":logs");
    /// ```
    pub const fn tail(&self) -> &'static str {
        self.tail
    }

    /// The family as a pattern: `pending`, `g:<name>:pending`, `job:<id>:lock`.
    ///
    /// ```
    /// assert_eq!(emq_id::Family::of_type(b"repeat:nightly").unwrap().0.pattern().to_string(), "repeat:<name>");
    /// ```
    pub fn pattern(&self) -> Pattern {
        Pattern(*self)
    }

    /// The pattern's three parts (head, placeholder, tail), for hosts that
    /// build text without formatting machinery.
    ///
    /// ```
    /// let (family, _) = emq_id::Family::of_type(b"job:JOB0KHTOWnGLuC:lock").unwrap();
    /// assert_eq!(family.pattern_parts(), ["job:", "<id>", ":lock"]);
    /// ```
    pub const fn pattern_parts(&self) -> [&'static str; 3] {
        let placeholder = match self.param {
            Param::None => "",
            Param::Name => "<name>",
            Param::JobId => "<id>",
        };
        [self.head, placeholder, self.tail]
    }

    /// The family of a type written as the bus writes it, and its parameter.
    ///
    /// A type no family's shape fits is [`Gate::Kind`]; a parameter never
    /// holds a `:`, so at most one family fits a type. Its name parameter
    /// must be 1–128 bytes of `[A-Za-z0-9_.-]`, else [`Gate::Kind`]; its id
    /// parameter passes the id gates (the gate is the error) and must be of
    /// namespace `JOB`, else [`Gate::Kind`].
    ///
    /// ```
    /// use emq_id::{Family, Gate};
    /// let (family, param) = Family::of_type(b"g:vip:pending").unwrap();
    /// assert_eq!((family.pattern().to_string(), param), ("g:<name>:pending".into(), Some(&b"vip"[..])));
    /// assert_eq!(Family::of_type(b"done").unwrap_err().gate(), Gate::Kind);
    /// assert_eq!(Family::of_type(b"g:a:b:pending").unwrap_err().gate(), Gate::Kind);
    /// assert_eq!(Family::of_type(b"job:JOB0KHTOWnGL!C:lock").unwrap_err().gate(), Gate::Charset);
    /// assert_eq!(Family::of_type(b"job:USR0KHTOWnGLuC").unwrap_err().gate(), Gate::Kind);
    /// ```
    pub fn of_type(ty: &[u8]) -> Result<(Family, Option<&[u8]>)> {
        let (family, param) = Family::ALL
            .iter()
            .find_map(|family| family.fit(ty).map(|param| (*family, param)))
            .ok_or(Error::new(Gate::Kind, "a type of key no family of the keyspace has"))?;
        if let Some(param) = param {
            family.check_param(param)?;
        }
        Ok((family, param))
    }

    /// The parameter when `ty` has this family's shape (head, then a
    /// non-empty middle without `:`, then tail), `Some(None)` for a fixed
    /// family's name. No parameter holds a `:` (names cannot, ids do not), so
    /// a type with one more segment than a family (`job:<id>:x`) fits none: `kind`.
    fn fit<'a>(&self, ty: &'a [u8]) -> Option<Option<&'a [u8]>> {
        if self.param == Param::None {
            return (ty == self.head.as_bytes()).then_some(None);
        }
        let fixed = self.head.len() + self.tail.len();
        let shaped = ty.len() > fixed && ty.starts_with(self.head.as_bytes()) && ty.ends_with(self.tail.as_bytes());
        let middle = shaped.then(|| &ty[self.head.len()..ty.len() - self.tail.len()])?;
        (!middle.contains(&b':')).then_some(Some(middle))
    }

    /// Checks a parameter of this family.
    pub(crate) fn check_param(&self, param: &[u8]) -> Result<()> {
        match self.param {
            Param::None => Err(Error::new(Gate::Kind, "this family of keys takes no parameter")),
            Param::Name => check_name(param),
            Param::JobId => check_job_id(param),
        }
    }
}

/// A name parameter: 1–128 bytes of `[A-Za-z0-9_.-]`, else [`Gate::Kind`].
///
/// ```
/// assert!(emq_id::check_name(b"vip.eu-1").is_ok());
/// assert_eq!(emq_id::check_name(b"a:b").unwrap_err().gate(), emq_id::Gate::Kind);
/// ```
pub fn check_name(name: &[u8]) -> Result<()> {
    if is_word(name, false) {
        Ok(())
    } else {
        Err(Error::new(Gate::Kind, "a name in a key is 1-128 bytes of [A-Za-z0-9_.-]"))
    }
}

/// 1–128 bytes of `[A-Za-z0-9_.-]`, and `:` when `colon`: the grammar of
/// queue names (with `:`), reserve names (with) and names in keys (without).
pub(crate) fn is_word(word: &[u8], colon: bool) -> bool {
    !word.is_empty()
        && word.len() <= MAX_NAME_LEN
        && word.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-') || (colon && b == b':'))
}

/// A job id in a key: the id gates, then namespace `JOB` (else [`Gate::Kind`],
/// the name the bus reports, `EMQKIND`).
pub(crate) fn check_job_id(id: &[u8]) -> Result<()> {
    let (ns, _) = decode(id)?;
    if &ns != JOB_NS {
        return Err(Error::new(Gate::Kind, "a job key takes an id of namespace JOB"));
    }
    Ok(())
}

/// [`Family::pattern`]: the family written with its parameter's placeholder.
///
/// ```
/// let pattern = emq_id::Family::ALL[19].pattern();
/// assert_eq!(pattern.to_string(), "g:<name>:pending");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Pattern(Family);

impl core::fmt::Display for Pattern {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let [head, placeholder, tail] = self.0.pattern_parts();
        write!(f, "{head}{placeholder}{tail}")
    }
}
