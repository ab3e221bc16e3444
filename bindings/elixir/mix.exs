# The Elixir binding of emq-id. No Hex dependencies (Hex is not reachable
# everywhere this builds): the NIF is a Rust crate in native/, built by the
# compiler task below with cargo and copied into priv/, and loaded with
# :erlang.load_nif/2 from EmqId.Native's @on_load.
#
# The same file builds in the repository (native/ is a member of the cargo
# workspace, over crates/emq-id) and in the package `cargo xtask dist` makes
# (native/ is a workspace of its own with a Cargo.lock, over a copy of the
# core in core/): cargo says which target directory it used. The build is
# --locked in both: the workspace's Cargo.lock in the repository, the
# package's own (the tree's, cut down to the NIF) in the package.
defmodule Mix.Tasks.Compile.EmqIdNif do
  use Mix.Task.Compiler

  @shortdoc "Builds the emq-id NIF with cargo and places it in priv/"
  @impl true
  def run(_args) do
    manifest = Path.join(__DIR__, "native/Cargo.toml")
    # The benchmark's floor (EmqId.Native.noop) exists only under MIX_ENV=bench.
    features = if Mix.env() == :bench, do: ["--features", "bench"], else: []
    cargo!(["build", "--quiet", "--release", "--locked", "--manifest-path", manifest] ++ features)
    target = target_directory(manifest)
    library = if match?({:unix, :darwin}, :os.type()), do: "libemq_id_nif.dylib", else: "libemq_id_nif.so"
    File.mkdir_p!(Path.join(__DIR__, "priv"))
    File.cp!(Path.join([target, "release", library]), Path.join(__DIR__, "priv/emq_id_nif.so"))
    # The modules load (and so run their @on_load) while they compile: the
    # app's priv/ in _build must hold the library before that.
    Mix.Project.build_structure()
    {:ok, []}
  end

  defp cargo!(args) do
    case System.cmd("cargo", args, cd: __DIR__, stderr_to_stdout: true) do
      {out, 0} -> out
      {out, _} -> Mix.raise("cargo #{hd(args)} of the emq-id NIF failed:\n" <> out)
    end
  end

  # Where cargo put the build (CARGO_TARGET_DIR, a config's target-dir, or
  # the workspace's target/), from the one field of `cargo metadata` we need.
  defp target_directory(manifest) do
    out = cargo!(["metadata", "--format-version", "1", "--no-deps", "--manifest-path", manifest])

    case Regex.run(~r/"target_directory":"((?:[^"\\]|\\.)*)"/, out) do
      [_, dir] -> String.replace(dir, ~r/\\(.)/, "\\1")
      nil -> Mix.raise("cargo metadata named no target directory:\n" <> out)
    end
  end
end

defmodule EmqId.MixProject do
  use Mix.Project

  # The workspace's version (Cargo.toml): `cargo xtask dist` writes it here.
  @version "0.1.0"

  def project do
    [
      app: :emq_id,
      version: @version,
      elixir: "~> 1.14",
      compilers: [:emq_id_nif] ++ Mix.compilers(),
      elixirc_paths: if(Mix.env() == :test, do: ["lib", "test/support"], else: ["lib"]),
      start_permanent: Mix.env() == :prod,
      deps: []
    ]
  end

  def application do
    [mod: {EmqId.Application, []}, extra_applications: [:logger]]
  end
end
