# The Elixir binding of emq-id. No Hex dependencies (Hex is not reachable
# everywhere this builds): the NIF is a Rust crate in native/, built by the
# compiler task below with cargo and copied into priv/, and loaded with
# :erlang.load_nif/2 from EmqId.Native's @on_load.
defmodule Mix.Tasks.Compile.EmqIdNif do
  use Mix.Task.Compiler

  @shortdoc "Builds the emq-id NIF with cargo and places it in priv/"
  @impl true
  def run(_args) do
    root = Path.expand("../..", __DIR__)

    {out, status} =
      System.cmd("cargo", ["build", "--quiet", "--release", "-p", "emq-id-elixir"], cd: root, stderr_to_stdout: true)

    if status != 0 do
      Mix.raise("cargo build of the emq-id NIF failed:\n" <> out)
    end

    target = System.get_env("CARGO_TARGET_DIR") || Path.join(root, "target")
    library = if match?({:unix, :darwin}, :os.type()), do: "libemq_id_nif.dylib", else: "libemq_id_nif.so"
    File.mkdir_p!(Path.join(__DIR__, "priv"))
    File.cp!(Path.join([Path.expand(target, root), "release", library]), Path.join(__DIR__, "priv/emq_id_nif.so"))
    # The modules load (and so run their @on_load) while they compile: the
    # app's priv/ in _build must hold the library before that.
    Mix.Project.build_structure()
    {:ok, []}
  end
end

defmodule EmqId.MixProject do
  use Mix.Project

  def project do
    [
      app: :emq_id,
      version: "0.1.0",
      elixir: "~> 1.14",
      compilers: [:emq_id_nif] ++ Mix.compilers(),
      start_permanent: Mix.env() == :prod,
      deps: []
    ]
  end

  def application do
    [mod: {EmqId.Application, []}, extra_applications: [:logger]]
  end
end
