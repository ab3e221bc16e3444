//! The Linux platforms the native packages are built for: x86-64 and arm64,
//! each for glibc (floor 2.17, manylinux2014's) and for musl (Alpine). One
//! row per platform holds every name the ecosystems give it, so no room
//! spells a triple, an npm `cpu` or a wheel tag of its own.

use anyhow::{bail, Result};

/// The C library a platform's programs load.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Libc {
    /// glibc, no symbol newer than [`GLIBC_FLOOR`].
    Gnu,
    /// musl: the addon and wheel link its `libc.so`, the CLI and `libemqid.a` carry it.
    Musl,
}

/// The newest glibc symbol version a glibc artifact may need: 2.17, the floor
/// of manylinux2014 (CentOS 7, Amazon Linux 2, RHEL 7 and every later
/// distribution), which zig links against.
pub const GLIBC_FLOOR: (u32, u32) = (2, 17);

pub struct Platform {
    /// The name npm packages and the tables use: `linux-x64-gnu`.
    pub name: &'static str,
    /// Rust's target triple.
    pub triple: &'static str,
    /// Node's `process.arch` (npm's `cpu`).
    pub cpu: &'static str,
    /// The ELF machine as `uname -m`, wheel tags and qemu spell it.
    pub machine: &'static str,
    /// Debian's architecture (a `.deb`'s `Architecture`).
    pub deb_arch: &'static str,
    pub libc: Libc,
}

pub const ALL: [Platform; 4] = [
    Platform {
        name: "linux-x64-gnu",
        triple: "x86_64-unknown-linux-gnu",
        cpu: "x64",
        machine: "x86_64",
        deb_arch: "amd64",
        libc: Libc::Gnu,
    },
    Platform {
        name: "linux-arm64-gnu",
        triple: "aarch64-unknown-linux-gnu",
        cpu: "arm64",
        machine: "aarch64",
        deb_arch: "arm64",
        libc: Libc::Gnu,
    },
    Platform {
        name: "linux-x64-musl",
        triple: "x86_64-unknown-linux-musl",
        cpu: "x64",
        machine: "x86_64",
        deb_arch: "amd64",
        libc: Libc::Musl,
    },
    Platform {
        name: "linux-arm64-musl",
        triple: "aarch64-unknown-linux-musl",
        cpu: "arm64",
        machine: "aarch64",
        deb_arch: "arm64",
        libc: Libc::Musl,
    },
];

impl Platform {
    /// What zig is asked to link for: a glibc triple carries the floor's version.
    pub fn zig_target(&self) -> String {
        match self.libc {
            Libc::Gnu => format!("{}.{}.{}", self.triple, GLIBC_FLOOR.0, GLIBC_FLOOR.1),
            Libc::Musl => self.triple.to_string(),
        }
    }

    /// What `zig cc -target` calls the platform (its C compiler's spelling).
    pub fn zig_cc_target(&self) -> String {
        match self.libc {
            Libc::Gnu => format!("{}-linux-gnu.{}.{}", self.machine, GLIBC_FLOOR.0, GLIBC_FLOOR.1),
            Libc::Musl => format!("{}-linux-musl", self.machine),
        }
    }

    /// npm's `libc` field.
    pub fn npm_libc(&self) -> &'static str {
        match self.libc {
            Libc::Gnu => "glibc",
            Libc::Musl => "musl",
        }
    }

    /// maturin's `--compatibility`: the wheel's platform tag.
    pub fn wheel_policy(&self) -> &'static str {
        match self.libc {
            Libc::Gnu => "manylinux2014",
            Libc::Musl => "musllinux_1_2",
        }
    }

    /// The platform tag pip matches a wheel by (`manylinux_2_17_aarch64`).
    pub fn wheel_tag(&self) -> String {
        match self.libc {
            Libc::Gnu => format!("manylinux_{}_{}_{}", GLIBC_FLOOR.0, GLIBC_FLOOR.1, self.machine),
            Libc::Musl => format!("musllinux_1_2_{}", self.machine),
        }
    }

    /// Debian's multiarch directory (`aarch64-linux-gnu`), for a glibc platform's `.deb`.
    pub fn multiarch(&self) -> String {
        format!("{}-linux-gnu", self.machine)
    }

    /// Whether this machine runs the platform's programs natively (an x86-64 host runs both x86-64 rows).
    pub fn native_here(&self) -> bool {
        self.machine == std::env::consts::ARCH
    }
}

/// The platforms `--platform NAME` selects (repeatable); none is all of them.
pub fn select(names: &[String]) -> Result<Vec<&'static Platform>> {
    if names.is_empty() {
        return Ok(ALL.iter().collect());
    }
    names
        .iter()
        .map(|n| match ALL.iter().find(|p| p.name == n) {
            Some(p) => Ok(p),
            None => {
                bail!("unknown platform {n:?}: one of {}", ALL.iter().map(|p| p.name).collect::<Vec<_>>().join(", "))
            }
        })
        .collect()
}

/// The row named `name` (a name of [`ALL`]; a typo is a bug in the caller).
pub fn named(name: &str) -> &'static Platform {
    ALL.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no platform {name}"))
}
