defmodule EmqId.EmptyTest do
  # Empty inputs in every call that takes bytes or a count: the empty binary
  # (fresh, a sub-binary at the end of a large binary, and past the dirty
  # scheduler's threshold), the empty list (not a binary: ArgumentError, never
  # a crash), and a batch of none.
  use ExUnit.Case, async: true

  alias EmqId.{Keyspace, Lease, Minter}

  # The same empty binary three ways: a literal, a zero-length sub-binary at
  # the end of a refc binary (its data pointer is one past the end), and the
  # tail of a binary matched whole.
  defp empties do
    big = :binary.copy("x", 100_000)
    <<_::binary-size(100_000), tail::binary>> = big
    ["", binary_part(big, 100_000, 0), tail, :binary.copy("")]
  end

  test "the empty key: slot 0, hashtag empty, on every empty binary" do
    for e <- empties() do
      assert Keyspace.slot(e) == 0
      assert Keyspace.hashtag(e) == ""
    end

    # A key past the dirty threshold whose hashtag is empty-braced: the whole key.
    long = :binary.copy("k", 70_000) <> "{}"
    assert Keyspace.hashtag(long) == long
    assert Keyspace.slot(long) in 0..16383
  end

  test "the empty id: the length gate, everywhere an id is read" do
    for e <- empties() do
      assert EmqId.parse(e) == {:error, :length}
      assert EmqId.decode(e) == {:error, :length}
      assert EmqId.namespace(e) == {:error, :length}
      assert EmqId.valid?(e) == false
      assert EmqId.compare(e, "USR0KHTOWnGLuC") == {:error, :length}
      assert EmqId.compare("USR0KHTOWnGLuC", e) == {:error, :length}
      assert Keyspace.xadd_id(e) == {:error, :length}
      assert Keyspace.key("orders", "job", e) == {:error, :length}
      assert Keyspace.job_key("orders", e) == {:error, :length}
    end

    assert %EmqId.Error{gate: :length} = catch_error(EmqId.parse!(""))
  end

  test "the empty name: each call's own gate" do
    for e <- empties() do
      assert EmqId.encode(e, 0) == {:error, :range}
      assert Keyspace.key(e, "pending") == {:error, :queue}
      assert Keyspace.key("orders", e) == {:error, :kind}
      assert Keyspace.parse_key(e) == {:error, :queue}
      assert Keyspace.reserve(e) == {:error, :kind}
      assert Keyspace.queue_prefix(e) == {:error, :queue}
      assert Keyspace.job_prefix(e) == {:error, :queue}
      assert Keyspace.prefix_bytes(e, e) == {:error, :queue}
      assert Keyspace.from_xadd_id(e) == {:error, :charset}
      assert Keyspace.from_xadd_id("1704117200000-1620567", e) == {:error, :range}
      assert Lease.parse_acquire_error(e) == nil
    end
  end

  test "the empty list is not a binary: ArgumentError, the VM lives on" do
    calls = [
      fn -> Keyspace.slot([]) end,
      fn -> Keyspace.hashtag([]) end,
      fn -> EmqId.parse([]) end,
      fn -> EmqId.valid?([]) end,
      fn -> EmqId.compare([], "USR0KHTOWnGLuC") end,
      fn -> EmqId.encode([], 0) end,
      fn -> Keyspace.key([], "pending") end,
      fn -> Keyspace.key("orders", "job", []) end,
      fn -> Keyspace.parse_key([]) end,
      fn -> Keyspace.reserve([]) end,
      fn -> Keyspace.xadd_id([]) end,
      fn -> Keyspace.from_xadd_id([]) end,
      fn -> Lease.parse_acquire_error([]) end,
      fn -> EmqId.mint([]) end
    ]

    for call <- calls, do: assert_raise(ArgumentError, call)
    assert Keyspace.slot("orders") == Keyspace.slot("emq:{orders}:pending")
  end

  test "a batch of none: next_many(m, 0) is {:ok, []} and leaves the minter as it was" do
    {:ok, m} = Minter.new(5)
    assert Minter.next_many(m, 0) == {:ok, []}
    assert Minter.next_at(m, 1_769_526_697_641) == {:ok, 274_557_032_793_636_864 + Bitwise.bsl(5, 12)}
    assert Minter.next_many(m, 0) == {:ok, []}
    assert {:ok, [_]} = Minter.next_many(m, 1)
  end

  test "mint of the empty namespace is :range (in a VM of its own: minting takes the node)" do
    dir = Path.join(System.tmp_dir!(), "emq-id-elixir-empty-#{System.os_time()}")
    env = [{"EMQ_NODE_DIR", dir}, {"EMQ_NODE", "47"}]

    assert {out, 0} = EmqId.TestVM.run(~s|IO.inspect({EmqId.mint(""), EmqId.mint(<<>>)})|, env)
    assert out =~ "{{:error, :range}, {:error, :range}}"
    File.rm_rf!(dir)
  end
end
