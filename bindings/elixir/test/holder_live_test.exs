defmodule EmqId.HolderLiveTest do
  # EmqId.Lease.Holder against a live valkey-server (test/support/valkey.ex):
  # a one-node cluster that is not ok yet, its slots unassigned, so the
  # reserve's scripts are answered CLUSTERDOWN, as a cluster being created or
  # failing over answers them. Left out, with a notice, where no server
  # binary is found (test_helper.exs).
  use ExUnit.Case, async: true
  @moduletag :valkey

  alias EmqId.{Error, Lease}
  alias EmqId.Lease.Holder
  alias EmqId.Test.{Resp, Valkey}

  test "CLUSTERDOWN: the first acquire is tried again for the TTL, then refused by name with :node" do
    %{conn: conn} = Valkey.start_node()
    eval = ["EVAL", Lease.script(:acquire).text, "1", Lease.key()]
    assert {:ok, [%Resp.Error{message: "CLUSTERDOWN" <> _}]} = Resp.pipeline(conn, [eval])

    {:ok, terms} = Lease.terms(600)
    began = System.monotonic_time(:millisecond)
    assert {:error, %Error{gate: :node, message: message}} = Holder.start_link(client: {Resp, conn}, terms: terms)
    elapsed = System.monotonic_time(:millisecond) - began
    assert elapsed >= terms.ttl_ms and elapsed < 5_000, "refused after #{elapsed} ms"
    # The core's refusal, then the server's reply: not a lost connection.
    assert message =~ "did not run the acquire for a whole TTL"
    assert message =~ ": CLUSTERDOWN Hash slot not served"
  end

  test "CLUSTERDOWN until the slots are served: the first acquire is tried again, and holds" do
    %{port: port, conn: conn} = Valkey.start_node()

    spawn_link(fn ->
      {:ok, admin} = Resp.start_link([{"127.0.0.1", port}])
      Process.sleep(300)
      {:ok, "OK"} = Resp.command(admin, ["CLUSTER", "ADDSLOTSRANGE", "0", "16383"])
    end)

    {:ok, terms} = Lease.terms(10_000)
    assert {:ok, h} = Holder.start_link(client: {Resp, conn}, replicas: 0, terms: terms)
    %{node: node} = Holder.held(h)
    assert {:ok, token} = Resp.command(conn, ["HGET", Lease.key(), "#{node}:token"])
    assert is_binary(token)
    assert {:ok, id} = Holder.mint(h, "JOB")
    assert EmqId.decode!(id).node == node
    assert Holder.release(h)
    assert Resp.command(conn, ["HGET", Lease.key(), "#{node}:token"]) == {:ok, nil}
  end
end
