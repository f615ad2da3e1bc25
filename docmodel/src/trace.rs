//! What docmodel tells a [`tracing`](https://docs.rs/tracing) subscriber, with the feature `tracing` (off by
//! default: without it, nothing of this is compiled, and no operation pays for it).
//!
//! # Spans
//!
//! Every repository operation is a span at `INFO`, named after the operation (`insert`, `get`, `save`,
//! `update`, `remove`, `find`, `count`, `migrate_all`, ...), with target `docmodel` and the fields:
//!
//! | field | what |
//! |---|---|
//! | `db.system` | the store ([`Store::system`]): `memory`, `redb`, `couchdb`, `couchbase` |
//! | `db.operation` | the operation, as the span's name |
//! | `docmodel.type` | the model's type (`user`) |
//! | `docmodel.key` | the document's key, or its model's key template (`user::{user_id}`) unless values are shown |
//! | `docmodel.query` | a query's filter, every value written `?` unless values are shown |
//! | `docmodel.attempt` | the attempt that ended the operation, where it retries (`update`, `restore`, ...) |
//! | `docmodel.error` | the class of the error it failed with (`conflict`, `transient`, ...), and `otel.status_code = "ERROR"` |
//!
//! The field names follow OpenTelemetry's database conventions where one exists, so that an OpenTelemetry
//! layer shows docmodel's spans beside a store SDK's.
//!
//! Each store call the operation makes is a child span at `DEBUG`, target `docmodel::store`, named after the
//! [`Store`] method (`get`, `insert`, `replace`, `remove`, `query`, ...), with `db.system`, `db.operation` and,
//! where values are shown, `docmodel.key`: a save with revisions shows its copy's insert, the replace and
//! the prune's remove.
//!
//! # Events
//!
//! Each with target `docmodel`, inside the span of the operation it happened in:
//!
//! | message | level | fields |
//! |---|---|---|
//! | `retrying after conflict` (or `transient`) | `INFO` | `docmodel.attempt` (the next), `delay_ms`, `docmodel.error` |
//! | `conflict: another writer got there first` | `INFO` | `docmodel.error` |
//! | `ambiguous write: ...` (the operation failed, and its write may have landed) | `WARN` | `docmodel.error`, `error` |
//! | `the write may have landed: its lookups are kept, ...` | `WARN` | `docmodel.key`, `reason` |
//! | `undoing a write whose lookup could not be kept` | `WARN` | `docmodel.key`, `reason` |
//! | `migrated on read` | `DEBUG` | `docmodel.key`, `from`, `to` |
//! | `lookup taken over: the document it named no longer holds its value` | `INFO` | `docmodel.key` (the lookup's) |
//! | `lookup released` | `DEBUG` | `docmodel.key`, `released` |
//! | `revision copy pruned` | `DEBUG` | `docmodel.key` (the copy's), `version`, `removed` |
//! | `a document the query matched does not read: skipped` (`Query::skip_unreadable`) | `WARN` | `docmodel.key`, `reason` |
//! | `migrate_all could not read a document`, `... could not migrate a document` | `WARN` | `docmodel.key`, `reason` |
//! | `query sent` (Mango, SQL++) | `DEBUG` | `db.query.text`, `db.query.parameters` |
//! | `reading an index`, `no index serves the filter: reading the model's keys` (MemoryStore, Redb) | `DEBUG` | `docmodel.index` |
//! | `slow operation` (above [`Repo::slow_threshold`](crate::Repo::slow_threshold)) | `WARN` | `elapsed_ms`, `threshold_ms` |
//!
//! On CouchDB the index a query reads is named in the query's text (`use_index`).
//!
//! # Personal data
//!
//! Keys and query values are personal data often enough (`user_email::ada@example.com`): a repository writes
//! neither into a trace unless told to with [`Repo::trace_values`](crate::Repo::trace_values). Until then, an
//! operation's key is written as its model's key template (`user::{user_id}`), an event's key as `<hidden>`,
//! a filter's values and a statement's arguments as `?`, and a store call carries no key.

#[cfg(feature = "tracing")]
use std::fmt;
#[cfg(feature = "tracing")]
use std::future::Future;
#[cfg(feature = "tracing")]
use std::time::{Duration, Instant};

#[cfg(feature = "tracing")]
use crate::Error;
#[cfg(feature = "tracing")]
use crate::store::{Call, Reply};
use crate::store::{Layer, Store};

/// How a repository traces its operations: whether keys and values are written, and the duration above
/// which an operation is reported as slow.
#[cfg(feature = "tracing")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tracing {
    /// Whether keys and query values are written into traces.
    pub(crate) values: bool,
    /// An operation taking this long or longer is reported with a warning.
    pub(crate) slow: Option<Duration>,
}

/// A repository's store, each call a span of its own with the feature `tracing`, and the repository's
/// [`Tracing`]. Without the feature, each call goes straight to the store.
#[derive(Debug, Clone)]
pub(crate) struct Traced<S> {
    pub(crate) inner: S,
    #[cfg(feature = "tracing")]
    pub(crate) tracing: Tracing,
}

impl<S> Traced<S> {
    pub(crate) fn new(inner: S) -> Self {
        Traced {
            inner,
            #[cfg(feature = "tracing")]
            tracing: Tracing::default(),
        }
    }
}

#[cfg(feature = "tracing")]
/// What an operation is about, as a trace shows it: a key, or a query's filter, each with or without its
/// values. Formatted only where a subscriber records the span.
pub(crate) enum Subject<'a> {
    /// A document's key, and the key template of its model.
    Key {
        key: &'a str,
        template: &'static str,
    },
    /// A lookup's key (`user_email::ada@example.com`), which names a value.
    Lookup(&'a str),
    /// A query's filter.
    Query(&'a crate::find::Node),
}

/// A [`Subject`] as a trace writes it: its values, or not.
#[cfg(feature = "tracing")]
pub(crate) struct Shown<'a> {
    pub(crate) subject: Subject<'a>,
    pub(crate) values: bool,
}

#[cfg(feature = "tracing")]
impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.subject {
            Subject::Key { key, .. } if self.values => f.write_str(key),
            Subject::Key { template, .. } => f.write_str(template),
            Subject::Lookup(lookup) if self.values => f.write_str(lookup),
            Subject::Lookup(_) => f.write_str("<hidden>"),
            Subject::Query(node) => node.write_shape(f, self.values),
        }
    }
}

#[cfg(feature = "tracing")]
std::thread_local! {
    /// Whether the repository operation being polled on this thread shows keys and values ([`Tracing`]).
    static SHOW_VALUES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A key (or a text naming one) as an event shows it: as it is where the repository shows values,
/// `<hidden>` elsewhere.
#[cfg(feature = "tracing")]
pub(crate) struct Private<'a>(pub(crate) &'a str);

#[cfg(feature = "tracing")]
impl fmt::Display for Private<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if shows_values() {
            f.write_str(self.0)
        } else {
            f.write_str("<hidden>")
        }
    }
}

/// An error as an event shows it: its message where the repository shows values; elsewhere its class only,
/// since a message names the document's key or a lookup's value (``document `user_email::ada@...` ...``).
#[cfg(feature = "tracing")]
pub(crate) struct ErrorText<'a> {
    error: &'a Error,
    show: bool,
}

#[cfg(feature = "tracing")]
impl<'a> ErrorText<'a> {
    /// `error` as the operation being run shows it.
    pub(crate) fn of(error: &'a Error) -> Self {
        ErrorText {
            error,
            show: shows_values(),
        }
    }
}

#[cfg(feature = "tracing")]
impl fmt::Display for ErrorText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.show {
            fmt::Display::fmt(self.error, f)
        } else {
            write!(f, "{} (the message is hidden)", class_name(self.error))
        }
    }
}

/// Whether the repository operation being run shows keys and values.
#[cfg(feature = "tracing")]
pub(crate) fn shows_values() -> bool {
    SHOW_VALUES.with(std::cell::Cell::get)
}

/// A future that runs with [`SHOW_VALUES`] set as its repository says, on whatever thread polls it.
#[cfg(feature = "tracing")]
pub(crate) struct Showing<'a, F> {
    pub(crate) future: std::pin::Pin<&'a mut F>,
    pub(crate) values: bool,
}

#[cfg(feature = "tracing")]
impl<F: Future> Future for Showing<'_, F> {
    type Output = F::Output;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        /// Puts the flag back as it was, after the poll or as a panic in it unwinds.
        struct Restore(bool);
        impl Drop for Restore {
            fn drop(&mut self) {
                SHOW_VALUES.with(|show| show.set(self.0));
            }
        }
        let values = self.values;
        let _restore = Restore(SHOW_VALUES.with(|show| show.replace(values)));
        self.future.as_mut().poll(cx)
    }
}

/// A query as a trace shows it: its text and its parameters, each value `?` unless the operation shows
/// values. Mango: the `_find` body, the selector's values hidden; SQL++: the statement, the keyspace written
/// `<keyspace>`, and its named arguments.
#[cfg(feature = "tracing")]
pub(crate) fn query_text(
    language: crate::store::QueryLanguage,
    request: &[u8],
) -> (String, String) {
    use crate::find::Dialect as _;
    let show = shows_values();
    let Ok(request) = serde_json::from_slice::<serde_json::Value>(request) else {
        return (String::from_utf8_lossy(request).into_owned(), String::new());
    };
    crate::find::with_dialect!(language, D => D::traced(request, show))
}

/// The name a trace gives an error's class: `conflict`, `not_found`, `transient`, ...
#[cfg(feature = "tracing")]
pub(crate) fn class_name(err: &Error) -> &'static str {
    use crate::ErrorClass;
    match err.class() {
        ErrorClass::Conflict => "conflict",
        ErrorClass::NotFound => "not_found",
        ErrorClass::AlreadyExists => "already_exists",
        ErrorClass::Transient => "transient",
        ErrorClass::Ambiguous => "ambiguous",
        ErrorClass::Permanent => "permanent",
    }
}

/// When a repository operation started, where its repository warns of slow ones.
#[cfg(feature = "tracing")]
pub(crate) fn started(tracing: Tracing) -> Option<Instant> {
    tracing.slow.map(|_| Instant::now())
}

/// Ends a repository operation's `span` with its `result`: records the class of the error it failed with,
/// reports a conflict and an ambiguous write, and warns when it took `tracing.slow` or longer.
#[cfg(feature = "tracing")]
pub(crate) fn finish<R>(
    tracing: Tracing,
    span: &tracing::Span,
    start: Option<Instant>,
    result: &Result<R, Error>,
) {
    // The events go out whether or not the span does: a subscriber may take `WARN` events only.
    if let Err(err) = result {
        let class = class_name(err);
        if !span.is_disabled() {
            span.record("docmodel.error", class);
            span.record("otel.status_code", "ERROR");
        }
        let text = ErrorText {
            error: err,
            show: tracing.values,
        };
        span.in_scope(|| match err.class() {
            crate::ErrorClass::Conflict => {
                tracing::info!(target: "docmodel", { docmodel.error = class }, "conflict: another writer got there first");
            }
            crate::ErrorClass::Ambiguous => {
                tracing::warn!(target: "docmodel", { docmodel.error = class, error = %text },
                    "ambiguous write: it may or may not have landed; read before writing again");
            }
            _ => {}
        });
    }
    if let (Some(start), Some(slow)) = (start, tracing.slow) {
        let elapsed = start.elapsed();
        if elapsed >= slow {
            span.in_scope(|| {
                tracing::warn!(
                    target: "docmodel",
                    elapsed_ms = elapsed.as_secs_f64() * 1000.0,
                    threshold_ms = slow.as_secs_f64() * 1000.0,
                    "slow operation"
                );
            });
        }
    }
}

/// A repository operation `$name` on the model `$model`, about `$subject` (a [`Subject`], where it has
/// one), running `$body` (a block, the operation's whole body): with the feature `tracing`, as an `async
/// move` block inside the operation's span ([`observe`]); without, the block as it is.
macro_rules! operation {
    ($repo:expr, $name:literal, $model:ty, $subject:expr, $body:block) => {{
        #[cfg(feature = "tracing")]
        {
            let traced = &$repo.store;
            let span = $crate::trace::operation_span!(traced, $name, $model);
            if !span.is_disabled() {
                let subject = $crate::trace::Shown {
                    subject: $subject,
                    values: traced.tracing.values,
                };
                let field = match &subject.subject {
                    $crate::trace::Subject::Key { .. } | $crate::trace::Subject::Lookup(_) => {
                        "docmodel.key"
                    }
                    $crate::trace::Subject::Query(_) => "docmodel.query",
                };
                span.record(field, ::tracing::field::display(&subject));
            }
            $crate::trace::observe!(traced, span, $body)
        }
        #[cfg(not(feature = "tracing"))]
        $body
    }};
    ($repo:expr, $name:literal, $model:ty, $body:block) => {{
        #[cfg(feature = "tracing")]
        {
            let traced = &$repo.store;
            let span = $crate::trace::operation_span!(traced, $name, $model);
            $crate::trace::observe!(traced, span, $body)
        }
        #[cfg(not(feature = "tracing"))]
        $body
    }};
}

/// Runs `$body` inside `$span`, and ends the span with its result ([`finish`]). The body's future is pinned
/// where it is made, and awaited without a wrapping `async fn`: each would copy it, or its result, once more.
#[cfg(feature = "tracing")]
macro_rules! observe {
    ($traced:ident, $span:ident, $body:block) => {{
        let start = $crate::trace::started($traced.tracing);
        let body = ::std::pin::pin!(async move $body);
        let result = ::tracing::Instrument::instrument(
            $crate::trace::Showing {
                future: body,
                values: $traced.tracing.values,
            },
            $span.clone(),
        )
        .await;
        $crate::trace::finish($traced.tracing, &$span, start, &result);
        result
    }};
}
#[cfg(feature = "tracing")]
pub(crate) use observe;

/// The `INFO` span of a repository operation ([`operation`]).
#[cfg(feature = "tracing")]
macro_rules! operation_span {
    ($traced:ident, $name:literal, $model:ty) => {
        ::tracing::info_span!(
            target: "docmodel",
            $name,
            db.system = $crate::store::Store::system(&$traced.inner),
            db.operation = $name,
            docmodel.r#type = <$model as $crate::DocModel>::TYPE,
            docmodel.key = ::tracing::field::Empty,
            docmodel.query = ::tracing::field::Empty,
            docmodel.attempt = ::tracing::field::Empty,
            docmodel.error = ::tracing::field::Empty,
            otel.status_code = ::tracing::field::Empty,
        )
    };
}
pub(crate) use operation;
#[cfg(feature = "tracing")]
pub(crate) use operation_span;

/// `tracing::event!` with target `docmodel`, with the feature `tracing`; nothing, its arguments not
/// evaluated, without it.
macro_rules! event {
    ($($arg:tt)*) => {
        #[cfg(feature = "tracing")]
        ::tracing::event!(target: "docmodel", $($arg)*);
    };
}
pub(crate) use event;

/// The span of a store call of `operation` on the store `system`: each operation's span has its own name, as
/// a span's name is fixed where it is declared.
#[cfg(feature = "tracing")]
fn store_span(operation: crate::store::Operation, system: &'static str) -> tracing::Span {
    use crate::store::Operation;
    macro_rules! span {
        ($($operation:ident => $name:literal),* $(,)?) => {
            match operation {
                $(Operation::$operation => ::tracing::debug_span!(
                    target: "docmodel::store",
                    $name,
                    db.system = system,
                    db.operation = $name,
                    docmodel.key = ::tracing::field::Empty,
                ),)*
            }
        };
    }
    span! {
        Get => "get",
        GetMany => "get_many",
        GetRevision => "get_revision",
        Insert => "insert",
        InsertMany => "insert_many",
        Replace => "replace",
        Remove => "remove",
        WriteAtomic => "write_atomic",
        Counter => "counter",
        Scan => "scan",
        ScanRange => "scan_range",
        Query => "query",
        CreateIndex => "create_index",
        EnsureValidation => "ensure_validation",
    }
}

/// Each store call, with the feature `tracing`, inside a `DEBUG` span of its own, named after the operation,
/// with the key it names where the repository writes keys into traces.
impl<S: Store> Layer for Traced<S> {
    type Inner = S;

    fn inner(&self) -> &S {
        &self.inner
    }

    #[cfg(feature = "tracing")]
    fn around<'a, F>(
        &'a self,
        call: Call<'a>,
        operation: impl FnOnce() -> F + Send + 'a,
    ) -> impl Future<Output = F::Output> + Send + 'a
    where
        F: Future + Send + 'a,
        F::Output: Reply,
    {
        let span = store_span(call.operation(), self.inner.system());
        if let Some(key) = call
            .key()
            .filter(|_| self.tracing.values && !span.is_disabled())
        {
            span.record("docmodel.key", key);
        }
        ::tracing::Instrument::instrument(operation(), span)
    }
}
