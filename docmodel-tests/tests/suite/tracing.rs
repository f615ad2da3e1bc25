//! What a `tracing` subscriber sees of docmodel (feature `tracing`): a span for each repository operation,
//! its store calls as child spans one level down, and events for retries, conflicts, migrations on read,
//! pruned copies, skipped documents, queries and slow operations; and no key or value unless the repository
//! shows them. A subscriber of the test's own keeps every span and event, with its fields, level and parent.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use docmodel::store::{CouchDb, MemoryStore, Redb, Store};
use docmodel::{DocModel, Error, JsonObject, MigrationError, Query, Repo};
use docmodel_tests::{Call, Fresh, Hooked, Hooks, Operation};
use serde::{Deserialize, Serialize};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// A user with an email lookup, two revision copies kept, and a step from 1.0.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "user",
    schema = "2.0",
    key = "user::{id}",
    revisions = 2,
    envelope(layout = "plain")
)]
#[docmodel(lookup = "user_email::{email}", migrate_from("1.0" = name_to_full_name), index = "status")]
struct User {
    #[docmodel(get)]
    id: u64,
    email: String,
    full_name: String,
    status: String,
}

fn name_to_full_name(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let name = doc
        .remove("name")
        .ok_or_else(|| MigrationError::missing_field("name"))?;
    doc.insert("full_name".into(), name);
    Ok(())
}

fn ada() -> User {
    User {
        id: 7,
        email: "ada@example.com".into(),
        full_name: "Ada Lovelace".into(),
        status: "active".into(),
    }
}

/// A span as the subscriber saw it.
#[derive(Debug, Clone)]
struct SpanSeen {
    name: &'static str,
    target: String,
    level: Level,
    fields: BTreeMap<String, String>,
    parent: Option<u64>,
}

/// An event as the subscriber saw it: its message among its fields, and the span it happened in.
#[derive(Debug, Clone)]
pub(super) struct EventSeen {
    pub(super) level: Level,
    pub(super) fields: BTreeMap<String, String>,
    span: Option<u64>,
}

impl EventSeen {
    pub(super) fn message(&self) -> &str {
        self.fields.get("message").map_or("", String::as_str)
    }
}

#[derive(Debug, Default)]
struct Seen {
    spans: BTreeMap<u64, SpanSeen>,
    events: Vec<EventSeen>,
}

/// What the subscriber kept, shared with the test.
#[derive(Clone, Default)]
pub(super) struct Kept(Arc<Mutex<Seen>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S> tracing_subscriber::Layer<S> for Kept
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent = ctx
            .span(id)
            .and_then(|span| span.parent())
            .map(|parent| parent.id().into_u64());
        let span = SpanSeen {
            name: attrs.metadata().name(),
            target: attrs.metadata().target().to_owned(),
            level: *attrs.metadata().level(),
            fields,
            parent,
        };
        self.0.lock().unwrap().spans.insert(id.into_u64(), span);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        if let Some(span) = self.0.lock().unwrap().spans.get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut span.fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let span = ctx.event_span(event).map(|span| span.id().into_u64());
        self.0.lock().unwrap().events.push(EventSeen {
            level: *event.metadata().level(),
            fields,
            span,
        });
    }
}

/// A subscriber that keeps nothing and wants every callsite sometimes: see [`Kept::install`].
struct Anchor;

impl Subscriber for Anchor {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::sometimes()
    }

    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        false
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

impl Kept {
    /// The subscriber keeping every span and event, from `TRACE` up, and what it keeps.
    pub(super) fn subscriber() -> (impl Subscriber + Send + Sync, Kept) {
        let kept = Kept::default();
        (tracing_subscriber::registry().with(kept.clone()), kept)
    }

    /// [`Kept::subscriber`], this thread's default until the guard drops.
    ///
    /// tracing caches each callsite's interest for the whole process, worked out when the callsite is first
    /// reached; while one dispatcher is registered, against the default of the thread that reached it. A test
    /// on another thread, with no subscriber, reaching a callsite first would cache "never", and this
    /// subscriber would not see its event (one CI run saw a `query sent` event go missing so). So an anchor
    /// dispatcher that wants every callsite sometimes stays registered for the process: interest is then
    /// worked out against every registered dispatcher, and each event asks the thread's own subscriber. Each
    /// callsite registered before is worked out again once this one is in place.
    pub(super) fn install() -> (tracing::subscriber::DefaultGuard, Kept) {
        static ANCHOR: std::sync::OnceLock<tracing::Dispatch> = std::sync::OnceLock::new();
        ANCHOR.get_or_init(|| tracing::Dispatch::new(Anchor));
        let (subscriber, kept) = Kept::subscriber();
        let guard = tracing::subscriber::set_default(subscriber);
        tracing::callsite::rebuild_interest_cache();
        (guard, kept)
    }

    fn spans(&self) -> BTreeMap<u64, SpanSeen> {
        self.0.lock().unwrap().spans.clone()
    }

    pub(super) fn events(&self) -> Vec<EventSeen> {
        self.0.lock().unwrap().events.clone()
    }

    /// The operations' spans, in the order they began: `(id, span)`.
    fn operations(&self) -> Vec<(u64, SpanSeen)> {
        self.spans()
            .into_iter()
            .filter(|(_, span)| span.target == "docmodel")
            .collect()
    }

    /// The names of the store calls made directly under the span `parent`, in order.
    fn store_calls(&self, parent: u64) -> Vec<&'static str> {
        self.spans()
            .values()
            .filter(|span| span.parent == Some(parent) && span.target == "docmodel::store")
            .map(|span| span.name)
            .collect()
    }

    /// The events that happened in the span `span`.
    fn events_in(&self, span: u64) -> Vec<EventSeen> {
        self.events()
            .into_iter()
            .filter(|event| event.span == Some(span))
            .collect()
    }
}

/// Every field a trace showed, of every span and event: what must not hold a key or a value.
fn everything_shown(kept: &Kept) -> String {
    let mut all = String::new();
    for span in kept.spans().values() {
        all.push_str(&format!("{} {:?}\n", span.name, span.fields));
    }
    for event in kept.events() {
        all.push_str(&format!("{:?}\n", event.fields));
    }
    all
}

/// The operations of a user's life on `S`, as a subscriber sees them.
async fn a_users_life<S: Fresh>() {
    let store = S::fresh().await;
    let system = store.system();
    Repo::<User>::new(&store).ensure_indexes().await.unwrap();
    let (_default, kept) = Kept::install();
    let users = Repo::<User>::new(&store);

    let mut doc = users.insert(ada()).await.unwrap();
    users.get(&User::key(7)).await.unwrap().unwrap();
    for status in ["away", "busy", "gone"] {
        doc.status = status.into();
        users.save(&mut doc).await.unwrap();
    }
    let page = users
        .find(&Query::new(User::fields().status.eq("gone")))
        .await
        .unwrap();
    assert_eq!(page.docs.len(), 1);
    let f = User::fields();
    assert_eq!(users.count(&f.status.eq("gone")).await.unwrap(), 1);
    assert_eq!(users.revisions(&User::key(7)).await.unwrap().len(), 2);
    let report = users.migrate_all().await.unwrap();
    assert_eq!(report.visited, 1);
    users.remove(&User::key(7)).await.unwrap();

    let operations = kept.operations();
    let names: Vec<&str> = operations.iter().map(|(_, span)| span.name).collect();
    assert_eq!(
        names,
        [
            "insert",
            "get",
            "save",
            "save",
            "save",
            "find",
            "count",
            "revisions",
            "migrate_all",
            "remove"
        ]
    );
    for (_, span) in &operations {
        assert_eq!(span.level, Level::INFO, "{span:?}");
        assert_eq!(
            span.parent, None,
            "an operation is not inside another: {span:?}"
        );
        assert_eq!(span.fields["db.system"], system);
        assert_eq!(span.fields["db.operation"], span.name);
        assert_eq!(span.fields["docmodel.type"], "user");
        assert!(!span.fields.contains_key("docmodel.error"), "{span:?}");
    }
    // Keys are shown as the model's template, a query's values as `?`.
    assert_eq!(operations[0].1.fields["docmodel.key"], "user::{id}");
    assert_eq!(operations[5].1.fields["docmodel.query"], "status = ?");
    assert_eq!(operations[6].1.fields["docmodel.query"], "status = ?");
    assert_eq!(operations[9].1.fields["docmodel.key"], "user::{id}");
    // The removal takes the document, its copies and its lookup away, each a store call of its own.
    let removal = kept.store_calls(operations[9].0);
    assert!(
        removal.iter().filter(|call| **call == "remove").count() >= 3,
        "{removal:?}"
    );

    // The store calls, one level down: the insert claims the email's lookup, then writes the document; the
    // third save writes the copy of version 3 and replaces the document (in one batch where the store has
    // atomic batches), then prunes the copy of version 1, now outside the window.
    let insert = kept.store_calls(operations[0].0);
    assert!(
        insert.iter().filter(|call| **call == "insert").count() >= 2,
        "{insert:?}"
    );
    let third_save = kept.store_calls(operations[4].0);
    let written = if store.capabilities().atomic_writes {
        third_save.contains(&"write_atomic")
    } else {
        third_save.contains(&"insert") && third_save.contains(&"replace")
    };
    assert!(written && third_save.contains(&"remove"), "{third_save:?}");
    for span in kept.spans().values() {
        if span.target == "docmodel::store" {
            assert_eq!(span.level, Level::DEBUG, "{span:?}");
            assert_eq!(span.fields["db.system"], system);
            assert!(
                !span.fields.contains_key("docmodel.key"),
                "keys are hidden: {span:?}"
            );
        }
    }
    let pruned: Vec<EventSeen> = kept
        .events_in(operations[4].0)
        .into_iter()
        .filter(|event| event.message() == "revision copy pruned")
        .collect();
    assert_eq!(pruned.len(), 1, "{:?}", kept.events());
    assert_eq!(pruned[0].level, Level::DEBUG);
    assert_eq!(pruned[0].fields["docmodel.key"], "<hidden>");
    assert_eq!(pruned[0].fields["version"], "1");

    let shown = everything_shown(&kept);
    for private in ["ada@example.com", "user::7", "gone", "Lovelace"] {
        assert!(
            !shown.contains(private),
            "`{private}` is in the trace:\n{shown}"
        );
    }
}

/// Hooks playing another writer: before each of the first `times` replaces of `user::7`, it changes the
/// stored user itself (a `!` after the name), so that the repository's replace meets a conflict. The store
/// makes no atomic batches: each attempt's save is one replace of the user.
struct Interfering {
    times: usize,
    done: AtomicUsize,
}

impl<S: Store> Hooks<S> for Interfering {
    /// No transactions either: in one, no other writer could come between the update's read and its write.
    fn capabilities(&self, inner: &S) -> docmodel::store::Capabilities {
        inner
            .capabilities()
            .with_atomic_writes(false)
            .with_transactions(false)
    }

    async fn before(&self, inner: &S, call: Call<'_>) -> Result<(), Error> {
        if call.operation() == Operation::Replace
            && call.key() == Some("user::7")
            && self.done.fetch_add(1, Ordering::SeqCst) < self.times
        {
            let stored = inner.get("user::7").await?.unwrap();
            let mut user: serde_json::Value = serde_json::from_slice(&stored.bytes).unwrap();
            let name = format!("{}!", user["full_name"].as_str().unwrap());
            user["full_name"] = name.into();
            inner
                .replace("user::7", &serde_json::to_vec(&user).unwrap(), &stored.cas)
                .await?;
        }
        Ok(())
    }
}

#[tokio::test]
async fn an_update_that_loses_two_races_shows_each_retry() {
    let store = Hooked::with(
        MemoryStore::new(),
        Interfering {
            times: 2,
            done: AtomicUsize::new(0),
        },
    );
    Repo::<User>::new(&store.inner).insert(ada()).await.unwrap();
    let (_default, kept) = Kept::install();
    let users = Repo::<User>::new(&store)
        .retry(docmodel::RetryPolicy::default().with_delays(Duration::ZERO, Duration::ZERO));
    let user = users
        .update(&User::key(7), |user| user.status = "away".into())
        .await
        .unwrap();
    assert_eq!(
        user.full_name, "Ada Lovelace!!",
        "both other saves are kept"
    );

    let update: Vec<(u64, SpanSeen)> = kept
        .operations()
        .into_iter()
        .filter(|(_, span)| span.name == "update")
        .collect();
    assert_eq!(update.len(), 1);
    let (id, span) = &update[0];
    assert_eq!(span.fields["docmodel.attempt"], "3");
    let retries: Vec<EventSeen> = kept
        .events_in(*id)
        .into_iter()
        .filter(|event| event.message() == "retrying after conflict")
        .collect();
    assert_eq!(retries.len(), 2, "one event a retry: {:?}", kept.events());
    for (retry, event) in retries.iter().enumerate() {
        assert_eq!(event.level, Level::INFO);
        assert_eq!(event.fields["docmodel.attempt"], (retry + 2).to_string());
        assert_eq!(event.fields["docmodel.error"], "conflict");
        assert!(event.fields.contains_key("delay_ms"));
    }
    // Each attempt's save is a span inside the update's; the two that lost say so.
    let saves: Vec<SpanSeen> = kept
        .spans()
        .into_values()
        .filter(|save| save.name == "save" && save.parent == Some(*id))
        .collect();
    assert_eq!(saves.len(), 3);
    let errors: Vec<Option<&str>> = saves
        .iter()
        .map(|save| save.fields.get("docmodel.error").map(String::as_str))
        .collect();
    assert_eq!(errors, [Some("conflict"), Some("conflict"), None]);
}

#[tokio::test]
async fn a_migration_on_read_and_a_slow_operation_are_reported() {
    let store = MemoryStore::new();
    store
        .insert(
            "user::7",
            br#"{"type":"user","schema":"1.0","ver":1,"id":7,"email":"ada@example.com","name":"Ada","status":"active"}"#,
        )
        .await
        .unwrap();
    let (_default, kept) = Kept::install();
    let users = Repo::<User>::new(&store).slow_threshold(Duration::ZERO);
    users.get(&User::key(7)).await.unwrap().unwrap();

    let (id, _) = kept.operations()[0].clone();
    let events = kept.events_in(id);
    let migrated: Vec<&EventSeen> = events
        .iter()
        .filter(|event| event.message() == "migrated on read")
        .collect();
    assert_eq!(migrated.len(), 1, "{events:?}");
    assert_eq!(migrated[0].level, Level::DEBUG);
    assert_eq!(
        (
            migrated[0].fields["from"].as_str(),
            migrated[0].fields["to"].as_str()
        ),
        ("1.0", "2.0")
    );
    let slow: Vec<&EventSeen> = events
        .iter()
        .filter(|event| event.message() == "slow operation")
        .collect();
    assert_eq!(slow.len(), 1, "{events:?}");
    assert_eq!(slow[0].level, Level::WARN);
    assert_eq!(slow[0].fields["threshold_ms"], "0.0");
}

#[tokio::test]
async fn a_skipped_document_is_reported_without_its_key_or_message() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store);
    users.insert(ada()).await.unwrap();
    // Another program's user with a status that is not a string.
    store
        .insert(
            "user::9",
            br#"{"type":"user","schema":"2.0","ver":1,"id":9,"email":"bob@example.com","full_name":"Bob","status":5}"#,
        )
        .await
        .unwrap();
    let (_default, kept) = Kept::install();
    let page = users
        .find(&Query::new(docmodel::Filter::all()).skip_unreadable())
        .await
        .unwrap();
    assert_eq!(page.unreadable.len(), 1);
    let skipped: Vec<EventSeen> = kept
        .events()
        .into_iter()
        .filter(|event| event.message().ends_with("skipped"))
        .collect();
    assert_eq!(skipped.len(), 1, "{:?}", kept.events());
    assert_eq!(skipped[0].level, Level::WARN);
    assert_eq!(skipped[0].fields["docmodel.key"], "<hidden>");
    assert_eq!(
        skipped[0].fields["reason"],
        "permanent (the message is hidden)"
    );
    assert!(!everything_shown(&kept).contains("user::9"));
}

/// Whole-store jobs: the walk is an `all` span a batch, each with the batch's reads under it; `migrate_all`
/// and `reindex` one span a run, with every store call of the run under it.
#[tokio::test]
async fn whole_store_jobs_are_traced() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store);
    for id in 1..=5 {
        let email = format!("u{id}@example.com");
        users.insert(User { id, email, ..ada() }).await.unwrap();
    }
    let (_default, kept) = Kept::install();
    let mut all = users.all().batch(2);
    while all.next().await.unwrap().is_some() {}
    users.migrate_all().await.unwrap();
    users.reindex().await.unwrap();

    let operations = kept.operations();
    let names: Vec<&str> = operations.iter().map(|(_, span)| span.name).collect();
    assert_eq!(
        names,
        [
            "all",
            "all",
            "all",
            "migrate_all",
            "reindex",
            "ensure_indexes"
        ],
        "the walk's batches of 2, 2 and 1; reindex builds the indexes first, inside its span"
    );
    let (reindex, ensure) = (&operations[4], &operations[5]);
    assert_eq!(ensure.1.parent, Some(reindex.0));
    assert_eq!(
        kept.store_calls(operations[0].0),
        ["scan", "get_many"],
        "the listing, then the batch"
    );
    assert_eq!(kept.store_calls(operations[1].0), ["get_many"]);
    assert_eq!(kept.store_calls(operations[3].0), ["scan", "get_many"]);
}

/// A subscriber that takes `WARN` and above only still gets the slow-operation warning, though the
/// operation's `INFO` span is not recorded.
#[tokio::test]
async fn a_slow_operation_is_reported_to_a_subscriber_of_warnings_only() {
    use tracing_subscriber::Layer;
    use tracing_subscriber::filter::LevelFilter;

    let store = MemoryStore::new();
    Repo::<User>::new(&store).insert(ada()).await.unwrap();
    let kept = Kept::default();
    let subscriber =
        tracing_subscriber::registry().with(kept.clone().with_filter(LevelFilter::WARN));
    let _default = tracing::subscriber::set_default(subscriber);
    Repo::<User>::new(&store)
        .slow_threshold(Duration::ZERO)
        .get(&User::key(7))
        .await
        .unwrap();
    assert!(kept.spans().is_empty());
    let events = kept.events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].message(), "slow operation");
}

#[tokio::test]
async fn values_are_shown_only_where_the_repository_says() {
    let store = MemoryStore::new();
    let (_default, kept) = Kept::install();
    let users = Repo::<User>::new(&store).trace_values(true);
    users.insert(ada()).await.unwrap();
    users
        .find(&Query::new(User::fields().status.eq("active")))
        .await
        .unwrap();
    let operations = kept.operations();
    assert_eq!(operations[0].1.fields["docmodel.key"], "user::7");
    assert_eq!(
        operations[1].1.fields["docmodel.query"],
        "status = \"active\""
    );
    let keys: Vec<String> = kept
        .spans()
        .values()
        .filter(|span| span.parent == Some(operations[0].0))
        .filter_map(|span| span.fields.get("docmodel.key").cloned())
        .collect();
    assert!(
        keys.contains(&"user_email::ada@example.com".to_owned())
            && keys.contains(&"user::7".to_owned()),
        "{keys:?}"
    );
}

#[tokio::test]
async fn a_failed_operation_carries_its_error_class() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store);
    users.insert(ada()).await.unwrap();
    let (_default, kept) = Kept::install();
    let err = users.insert(ada()).await.unwrap_err();
    assert!(matches!(err, Error::AlreadyExists { .. }), "{err:?}");
    let (_, insert) = kept.operations()[0].clone();
    assert_eq!(insert.fields["docmodel.error"], "already_exists");
    assert_eq!(insert.fields["otel.status_code"], "ERROR");
}

/// A query sent in the store's language is an event with its text, the values hidden.
#[tokio::test]
async fn couchdb_queries_are_shown_without_their_values() {
    let store = CouchDb::fresh().await;
    let users = Repo::<User>::new(&store);
    users.ensure_indexes().await.unwrap();
    users.insert(ada()).await.unwrap();
    let (_default, kept) = Kept::install();
    let page = users
        .find(&Query::new(User::fields().status.eq("active")))
        .await
        .unwrap();
    assert_eq!(page.docs.len(), 1);
    let sent: Vec<EventSeen> = kept
        .events()
        .into_iter()
        .filter(|event| event.message() == "query sent")
        .collect();
    assert!(!sent.is_empty(), "{:?}", kept.events());
    assert_eq!(sent[0].level, Level::DEBUG);
    let text = &sent[0].fields["db.query.text"];
    assert!(text.contains(r#""status":{"$eq":"?"}"#), "{text}");
    assert!(!everything_shown(&kept).contains("active"));
}

mod every_store {
    use super::*;

    #[tokio::test]
    async fn memory() {
        a_users_life::<MemoryStore>().await;
    }

    #[tokio::test]
    async fn redb() {
        a_users_life::<Redb>().await;
    }

    #[tokio::test]
    async fn couchdb() {
        a_users_life::<CouchDb>().await;
    }
}
