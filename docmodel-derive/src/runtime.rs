//! How the expansion names the runtime crate's hidden module.

/// The runtime's hidden module as this derive names it, `__private_<version>` (`__private_0_1_0`): the
/// expansion reaches the runtime through it, so a runtime of another version, which has no module of that
/// name, fails to compile at the expansion's `use`, naming the version this derive expands for.
pub fn private_module() -> syn::Ident {
    let version = env!("CARGO_PKG_VERSION").replace(['.', '-', '+'], "_");
    quote::format_ident!("__private_{version}")
}
