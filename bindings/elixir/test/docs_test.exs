defmodule EmqId.DocsTest do
  # Every public function of every module users see carries its @doc: the API reference
  # (`h EmqId.mint` in IEx, ExDoc) is generated from these, so an undocumented function is
  # a hole in it. Modules marked `@moduledoc false` are internal and skipped.
  use ExUnit.Case, async: true

  test "every public function of every documented module has a @doc" do
    {:ok, modules} = :application.get_key(:emq_id, :modules)

    missing =
      for module <- modules,
          {:docs_v1, _, _, _, moduledoc, _, docs} <- [Code.fetch_docs(module)],
          moduledoc != :hidden,
          {{kind, name, arity}, _, _, doc, _} <- docs,
          kind in [:function, :macro],
          doc == :none,
          do: "#{inspect(module)}.#{name}/#{arity}"

    documented = Enum.count(modules, &match?({:docs_v1, _, _, _, %{}, _, _}, Code.fetch_docs(&1)))
    assert documented >= 5, "the documented modules were not found: #{inspect(modules)}"
    assert missing == [], "public functions without @doc: #{Enum.join(missing, ", ")}"
  end
end
