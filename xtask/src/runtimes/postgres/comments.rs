//! The extension's `COMMENT ON`s, read from a live server's catalogue: every
//! object `CREATE EXTENSION emq_id` makes (functions and the functions behind
//! operators, the type, casts, operators, operator classes, the mark table)
//! must carry one, because they are its users' reference (`\df+`, `\dT+`)
//! and the source of the generated one, `target/docs/api/sql.txt`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, ensure, Result};

use super::server::Cluster;
use crate::root;

/// Every member of the extension (`pg_depend` type `e`) with no comment, as
/// `pg_describe_object` names it (`function emq_slot(bytea)`), sorted.
const UNCOMMENTED: &str = "
    SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS object
    FROM pg_depend d
    JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
    LEFT JOIN pg_description c ON c.classoid = d.classid AND c.objoid = d.objid AND c.objsubid = 0
    WHERE e.extname = 'emq_id' AND d.deptype = 'e' AND c.description IS NULL
    ORDER BY 1";

/// The extension's functions: name, arguments (names and defaults), result,
/// comment; sorted by name, then arguments. Fields are split by the unit
/// separator (0x1f) and a comment's line breaks are spaces, so one row is one line.
const FUNCTIONS: &str = "
    SELECT concat_ws(chr(31), p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid),
                     replace(coalesce(obj_description(p.oid, 'pg_proc'), ''), E'\\n', ' '))
    FROM pg_depend d
    JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
    JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
    WHERE e.extname = 'emq_id' AND d.deptype = 'e'
    ORDER BY p.proname, pg_get_function_identity_arguments(p.oid)";

/// Every other member (type, casts, operators, operator classes and families,
/// the table): its description and comment, as [`FUNCTIONS`] gives them.
const OTHERS: &str = "
    SELECT concat_ws(chr(31), pg_describe_object(d.classid, d.objid, d.objsubid),
                     replace(coalesce(c.description, ''), E'\\n', ' '))
    FROM pg_depend d
    JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
    LEFT JOIN pg_description c ON c.classoid = d.classid AND c.objoid = d.objid AND c.objsubid = 0
    WHERE e.extname = 'emq_id' AND d.deptype = 'e' AND d.classid <> 'pg_proc'::regclass
    ORDER BY 1";

/// Negative controls: a comment taken away (inside a transaction rolled
/// back) must be named by [`UNCOMMENTED`]; a function, and an object that is not one.
const TAKEN_AWAY: &[(&str, &str)] = &[
    ("FUNCTION emq_slot(bytea)", "function emq_slot(bytea)"),
    ("CAST (text AS branded_id)", "cast from text to branded_id"),
];

/// The live test: no object without a comment, the check fails when one
/// has none, and the SQL reference is written to `target/docs/api/sql.txt`.
pub fn run(c: &Cluster) -> Result<()> {
    let missing = uncommented(c, "")?;
    ensure!(
        missing.is_empty(),
        "postgres: {} objects of the extension have no COMMENT ON (add one beside each definition in bindings/postgres/src):\n  {}",
        missing.len(),
        missing.join("\n  ")
    );
    for (object, named) in TAKEN_AWAY {
        let found = uncommented(c, &format!("COMMENT ON {object} IS NULL;"))?;
        ensure!(
            found == [*named],
            "postgres: with the comment on {object} taken away, the check named {found:?}, not [{named:?}]"
        );
    }
    let reference = reference(c)?;
    let path = write_reference(&reference.text, &root().join("target/docs/api"))?;
    println!(
        "postgres: all {} functions and {} other objects of the extension have a COMMENT ON, and the check names one taken away; SQL reference: {}",
        reference.functions,
        reference.others,
        path.display()
    );
    Ok(())
}

/// [`UNCOMMENTED`] after `change`, in a transaction rolled back.
fn uncommented(c: &Cluster, change: &str) -> Result<Vec<String>> {
    let out = c.psql(&format!("BEGIN;\n{change}\n{UNCOMMENTED};\nROLLBACK;"))?;
    Ok(out.lines().filter(|l| !l.is_empty()).map(str::to_string).collect())
}

/// The SQL reference and the number of objects it describes.
pub struct Reference {
    pub text: String,
    pub functions: usize,
    pub others: usize,
}

/// The SQL reference, from the live catalogue: every function's signature
/// and comment, sorted by name, then every other object's.
pub fn reference(c: &Cluster) -> Result<Reference> {
    let functions = rows::<4>(c, FUNCTIONS)?;
    let others = rows::<2>(c, OTHERS)?;
    let mut text = String::from(
        "emq_id: SQL reference\n\
         Generated from the COMMENT ON of every object of the extension, read from a live server's catalogue.\n\n\
         Functions\n=========\n\n",
    );
    for [name, args, result, comment] in &functions {
        writeln!(text, "{name}({args}) -> {result}\n    {comment}\n")?;
    }
    text.push_str("Types, casts, operators, operator classes and tables\n====================================================\n\n");
    for [object, comment] in &others {
        writeln!(text, "{object}\n    {comment}\n")?;
    }
    Ok(Reference { text, functions: functions.len(), others: others.len() })
}

/// The rows `sql` answers, each split into its `N` fields.
fn rows<const N: usize>(c: &Cluster, sql: &str) -> Result<Vec<[String; N]>> {
    c.psql(sql)?
        .lines()
        .map(|line| {
            let fields: Vec<String> = line.split('\u{1f}').map(str::to_string).collect();
            fields
                .try_into()
                .map_err(|_| anyhow!("postgres: a catalogue row of the SQL reference is not {N} fields: {line:?}"))
        })
        .collect()
}

/// Writes `text` as `sql.txt` in `dir`, answering its path.
fn write_reference(text: &str, dir: &Path) -> Result<PathBuf> {
    crate::mkdir(dir)?;
    let path = dir.join("sql.txt");
    crate::write(&path, text)?;
    Ok(path)
}

/// For the docs build: builds and installs the extension, starts a
/// throwaway server, and writes the SQL reference as `dir/sql.txt`, refusing
/// to write one in which an object has no comment.
pub fn write_reference_into(dir: &Path) -> Result<PathBuf> {
    super::build::install()?;
    let cluster = Cluster::start()?;
    let missing = uncommented(&cluster, "")?;
    ensure!(missing.is_empty(), "objects of the extension without a COMMENT ON: {}", missing.join(", "));
    write_reference(&reference(&cluster)?.text, dir)
}
