//! The parity check can fail: an operation a runtime lacks, an exclusion that
//! excuses nothing and an exclusion without a reason are each refused.

use xtask::tree::parity::{surfaces, table_of, RUNTIMES};

fn read(path: &str) -> String {
    std::fs::read_to_string(xtask::root().join(path)).unwrap()
}

#[test]
fn the_committed_files_pass() {
    let (_, problems) =
        table_of(&read("xtask/parity/operations.txt"), &read("xtask/parity/exclusions.txt"), &surfaces().unwrap())
            .unwrap();
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_missing_operation_fails() {
    let ops = read("xtask/parity/operations.txt")
        + "to_uuid | to_uuid | emq_to_uuid | ToUUID | toUuid | emq_to_uuid | EmqId.to_uuid | to_uuid | Id.toUuid\n";
    let (table, problems) = table_of(&ops, &read("xtask/parity/exclusions.txt"), &surfaces().unwrap()).unwrap();
    assert_eq!(problems.len(), RUNTIMES.len(), "{problems:?}");
    assert!(problems[0].contains("lacks to_uuid"), "{problems:?}");
    assert!(table.contains("| `to_uuid` | **missing** |"));
}

#[test]
fn an_exclusion_that_excuses_nothing_or_gives_no_reason_fails() {
    let ops = read("xtask/parity/operations.txt");
    let stale = read("xtask/parity/exclusions.txt") + "go encode: Go once had no encode, long ago\n";
    let (_, problems) = table_of(&ops, &stale, &surfaces().unwrap()).unwrap();
    assert!(problems.iter().any(|p| p.contains("go has encode now")), "{problems:?}");
    assert!(table_of(&ops, "go encode: no\n", &surfaces().unwrap()).is_err());
    assert!(table_of(&ops, "cobol encode: COBOL is not a runtime of ours\n", &surfaces().unwrap()).is_err());
}

#[test]
fn no_binding_types_a_contract_number() {
    let problems = xtask::tree::parity::numbers::check().unwrap();
    assert!(problems.is_empty(), "{problems:#?}");
}
