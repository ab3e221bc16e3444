//! The Node package's per-platform packages, napi-rs's convention: the addon
//! for one platform alone (`@echomq/emq-id-linux-arm64-gnu`), its `os`, `cpu`
//! and `libc` fields telling npm where it installs; the main package names
//! every one as an optional dependency at its own version, and npm installs
//! only the one that fits. The loader (bindings/node/index.js) requires it.

use serde_json::{json, Map, Value};

use anyhow::{ensure, Context, Result};

use super::dist::{check_metadata_of, npm_pack, NAME};
use crate::dist::cross::{self, Linkage};
use crate::dist::platform::{self, Platform};
use crate::dist::{self, Artifact};
use crate::{root, sh};

/// `@echomq/emq-id-linux-x64-gnu`.
pub fn package_name(platform: &Platform) -> String {
    format!("{NAME}-{}", platform.name)
}

/// The addon's file name in its package (the loader's `emq-id.<platform>.node`).
pub fn addon_file(platform: &Platform) -> String {
    format!("emq-id.{}.node", platform.name)
}

/// The main package's `optionalDependencies`: every platform's package, at the workspace's version.
pub fn optional_dependencies() -> Value {
    let map: Map<String, Value> =
        platform::ALL.iter().map(|p| (package_name(p), Value::from(dist::version()))).collect();
    Value::Object(map)
}

/// Builds `platform`'s addon with zig, lays its package out under
/// `target/dist-stage/npm/` and packs it into `target/dist/`.
pub fn pack(platform: &'static Platform) -> Result<Artifact> {
    let built = cross::build(platform, "emq-id-node", Linkage::Loaded)?.join("libemq_id_node.so");
    let stage = root().join("target/dist-stage/npm").join(platform.name);
    let _ = std::fs::remove_dir_all(&stage);
    crate::mkdir(&stage)?;
    let addon = stage.join(addon_file(platform));
    std::fs::copy(&built, &addon).with_context(|| format!("copying {}", built.display()))?;
    sh(cross::strip(platform)?.arg("--strip-unneeded").arg(&addon))?;
    let main = crate::load(&root().join(super::PACKAGE).join("package.json"))?;
    let manifest = json!({
        "name": package_name(platform),
        "version": dist::version(),
        "description": format!("The native addon of {NAME} for {} ({}, {}): installed by {NAME}, not used on its own",
            platform.name, platform.machine, platform.npm_libc()),
        "homepage": main["homepage"],
        "repository": main["repository"],
        "license": main["license"],
        "os": ["linux"],
        "cpu": [platform.cpu],
        "libc": [platform.npm_libc()],
        "main": addon_file(platform),
        "files": [addon_file(platform)],
        "engines": main["engines"],
    });
    crate::write(stage.join("package.json"), format!("{}\n", serde_json::to_string_pretty(&manifest)?))?;
    crate::write(
        stage.join("README.md"),
        format!(
            "# {}\n\nThe native addon of [`{NAME}`](https://www.npmjs.com/package/{NAME}) for {} \
             ({} with {}). Install `{NAME}`: npm picks this package where it fits, and its loader uses it.\n",
            package_name(platform),
            platform.name,
            platform.machine,
            platform.npm_libc()
        ),
    )?;
    dist::licenses_into(&stage)?;
    let (tarball, packed) = npm_pack(&stage)?;
    check_metadata_of(&packed, super::PACKAGE)?;
    ensure!(packed["version"] == dist::version(), "{} says version {}", tarball.display(), packed["version"]);
    Ok(Artifact { runtime: "Node", platform: Some(platform), path: tarball, version: dist::version().into() })
}
