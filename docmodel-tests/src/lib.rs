//! Integration tests, compile-fail cases and benchmarks of docmodel; nothing to use from here.
