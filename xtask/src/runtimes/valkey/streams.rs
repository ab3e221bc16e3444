//! Stream entry ids on a live server: ids of `EVT` minted by four minters of
//! different nodes, interleaved, sorted as text and written with
//! `XADD key <xadd_id>` are every one accepted (the order theorem, checked by
//! the server); `XRANGE` from `min_for(t)`'s millisecond returns exactly the
//! entries minted at or after `t`; every entry id read back gives its id.

use std::collections::HashMap;

use anyhow::{bail, ensure, Context, Result};
use emq_resp::{Connection, Reply};

const PER_MINTER: usize = 500;

fn id(minter: &emq_id::Minter) -> Result<String> {
    Ok(emq_id::Id::new(emq_id::EVENT_NS, minter.next()?)?.to_string())
}

/// Runs on `conns`, the connections of a live cluster by address, with its slot map.
pub fn check(conns: &mut HashMap<String, Connection>, map: &[(u16, u16, String)]) -> Result<()> {
    let key = emq_id::key(b"orders", b"stream:events", None)?;
    let owner = emq_resp::owner(map, emq_id::slot(key.as_bytes())).context("no owner for the stream's slot")?;
    let conn = conns.get_mut(owner).context("no connection to the stream's owner")?;

    // Two halves of interleaved minting, with the instant t between them.
    let minters: Vec<emq_id::Minter> = (10..14).map(|n| emq_id::Minter::new(n).unwrap()).collect();
    let mut before = vec![];
    for _ in 0..PER_MINTER / 2 {
        for m in &minters {
            before.push(id(m)?);
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(3));
    let t = emq_id::now_ms();
    std::thread::sleep(std::time::Duration::from_millis(1));
    let mut after = vec![];
    for _ in 0..PER_MINTER / 2 {
        for m in &minters {
            after.push(id(m)?);
        }
    }
    let unix_ms = |text: &str| emq_id::Id::parse(text.as_bytes()).map(|i| i.unix_ms() as i64).unwrap_or(0);
    ensure!(
        before.iter().all(|i| unix_ms(i) < t) && after.iter().all(|i| unix_ms(i) >= t),
        "the minting halves overlap t: the clock did not move as expected"
    );

    let mut all: Vec<String> = before.iter().chain(&after).cloned().collect();
    all.sort();
    let (mut accepted, mut refused) = (0usize, 0usize);
    for text in &all {
        let entry = emq_id::xadd_id(text.as_bytes())?;
        match conn.call(&[b"XADD", key.as_bytes(), entry.as_str().as_bytes(), b"id", text.as_bytes()]) {
            Ok(reply) if reply.as_text().as_deref() == Some(entry.as_str()) => accepted += 1,
            Ok(Reply::Error(_)) => refused += 1,
            other => bail!("XADD {entry}: {other:?}"),
        }
    }

    // The server does check the order: an entry id at or below the last is refused.
    let first = emq_id::xadd_id(all[0].as_bytes())?;
    let control = conn
        .call(&[b"XADD", key.as_bytes(), first.as_str().as_bytes(), b"id", b"x"])
        .context("XADD of an old entry id")?;
    ensure!(
        control.error().is_some(),
        "XADD of an old entry id was accepted ({control:?}): the order check proves nothing"
    );

    // XRANGE from min_for(t)'s millisecond: exactly the ids minted at or after t.
    let from = emq_id::unix_ms(emq_id::min_for(t)?).to_string();
    let reply = conn.call(&[b"XRANGE", key.as_bytes(), from.as_bytes(), b"+"]).context("XRANGE")?;
    let entries = reply.as_array().with_context(|| format!("XRANGE answered {reply:?}"))?;
    let mut read_back = vec![];
    let mut round_trips = 0usize;
    for e in entries {
        let parts = e.as_array().context("an XRANGE entry is not an array")?;
        let entry = parts.first().and_then(Reply::as_text).context("an XRANGE entry has no id")?;
        let field = parts.get(1).and_then(Reply::as_array).and_then(|f| f.get(1)).and_then(Reply::as_text);
        let back =
            emq_id::from_xadd_id(entry.as_bytes(), emq_id::EVENT_NS).with_context(|| format!("entry id {entry}"))?;
        if Some(back.to_string()) == field {
            round_trips += 1;
        }
        read_back.push(back.to_string());
    }
    let mut want = after.clone();
    want.sort();
    println!(
        "streams: {} ids of 4 minters interleaved, sorted as text: {accepted} XADDs accepted, {refused} refused \
         (an out-of-order XADD is refused by the server)",
        all.len()
    );
    println!(
        "streams: XRANGE from min_for(t) returned {} entries for {} minted at or after t; {round_trips} entry ids gave back their id",
        read_back.len(),
        want.len()
    );
    ensure!(accepted == all.len() && read_back == want && round_trips == read_back.len(), "the stream check failed");
    Ok(())
}
