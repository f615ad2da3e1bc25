//! A user's `async fn` with 40 repository calls in a row compiles with the compiler's default recursion limit,
//! on every store (issue 61: a program's `main` with about 25 calls on the Couchbase store did not compile,
//! "queries overflow the depth limit ... computing layout of async block", without
//! `#![recursion_limit = "256"]`). The suite sets no limit: this module compiling is the test; the
//! program runs on MemoryStore, and its future's size is taken on every store (which makes the compiler
//! compute its layout, where the depth overflowed).

use docmodel::store::{CouchDb, MemoryStore, Redb, Store};
use docmodel::{DocModel, Error, Expiry, Repo};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}", revisions = 2)]
#[docmodel(lookup = "note_title::{title}", envelope(layout = "plain", accessed))]
struct Note {
    #[docmodel(get)]
    id: u64,
    #[docmodel(get, set)]
    title: String,
}

fn note(id: u64) -> Note {
    Note {
        id,
        title: format!("note {id}"),
    }
}

/// Forty calls, as a user's program makes them one after another in one `async fn`.
async fn forty_calls<S: Store>(store: S) -> Result<usize, Error> {
    let notes = Repo::<Note>::new(store);
    let mut calls = 0;
    // 1-4
    let id = notes.next_id().await?;
    let mut first = notes.insert(note(id)).await?;
    let _ = notes.get(first.key()).await?;
    first.set_title("first, again");
    notes.save(&mut first).await?;
    calls += 4;
    // 5-12
    for _ in 0..2 {
        let id = notes.next_id().await?;
        let mut doc = notes.insert(note(id)).await?;
        doc.set_title(format!("note {id}, saved"));
        notes.save(&mut doc).await?;
        let _ = notes.get_by_lookup(&format!("note {id}, saved")).await?;
        calls += 4;
    }
    // 13-20
    let key = Note::key(id);
    let _ = notes.revisions(&key).await?;
    let _ = notes.revision(&key, 1).await?;
    let _ = notes.restore(&key, 1).await?;
    let _ = notes.touch(&key).await?;
    let _ = notes.get_and_touch(&key).await?;
    let _ = notes.update(&key, |note| note.title.push('!')).await?;
    let _ = notes
        .try_update(&key, |note| {
            note.title.push('?');
            Ok::<(), std::io::Error>(())
        })
        .await?;
    let _ = notes.load(&key.clone().into()).await?;
    calls += 8;
    // 21-30
    let many = notes.insert_many(vec![note(100), note(101)]).await?;
    assert!(many.iter().all(Result::is_ok));
    let keys = [Note::key(100), Note::key(101), Note::key(102)];
    let _ = notes.get_many(&keys).await?;
    let references: Vec<_> = keys.iter().cloned().map(Into::into).collect();
    let _ = notes.load_many(&references).await?;
    notes.remove(&Note::key(101)).await?;
    let _ = notes.get(&Note::key(101)).await?;
    let mut doc = notes.get(&Note::key(100)).await?.expect("inserted");
    doc.set_title("hundred");
    notes.save(&mut doc).await?;
    let _ = notes.get_by_lookup("hundred").await?;
    let expiring = Repo::<Note>::new(notes.store()).expiry(Expiry::Never);
    let _ = expiring.touch(&Note::key(100)).await?;
    calls += 10;
    // 31-40
    for id in 200..205 {
        let doc = notes.insert(note(id)).await?;
        notes.remove(doc.key()).await?;
        calls += 2;
    }
    Ok(calls)
}

/// The size of the program's future on store `S`: the compiler computes its layout.
fn program_size<S: Store>(store: S) -> usize {
    std::mem::size_of_val(&forty_calls(store))
}

#[tokio::test]
async fn forty_calls_in_one_async_fn_compile_and_run_without_a_recursion_limit() {
    assert_eq!(forty_calls(MemoryStore::new()).await.unwrap(), 40);
    // Every store's program is compiled, its layout computed.
    let sizes: [fn() -> usize; 4] = [
        || program_size(MemoryStore::new()),
        || program_size(Redb::in_memory().unwrap()),
        || program_size(std::sync::Arc::new(Redb::in_memory().unwrap())),
        || program_size(docmodel::store::DynStore::new(MemoryStore::new())),
    ];
    assert!(sizes.iter().all(|size| size() > 0));
    let _: fn(CouchDb) -> usize = program_size::<CouchDb>;
    #[cfg(feature = "couchbase")]
    {
        /// A user's whole `main` on Couchbase: the connection, then the forty calls.
        async fn couchbase_main() -> Result<usize, Error> {
            let store = docmodel::store::Couchbase::builder("couchbase://127.0.0.1", "app")
                .credentials("app", "secret")
                .connect()
                .await?;
            forty_calls(store).await
        }
        let _: fn() -> usize = || std::mem::size_of_val(&couchbase_main());
        let _: fn(docmodel::store::Couchbase) -> usize = program_size::<docmodel::store::Couchbase>;
        let _: fn(docmodel_tests::couchbase::Listed) -> usize =
            program_size::<docmodel_tests::couchbase::Listed>;
    }
}
