package io.echomq.emqid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every gate of the core through the one error helper, and each gate through a public call. */
class ErrorsTest {
    @Test
    void theErrorHelperMapsEveryGateOfTheCore() {
        List<Gate> mapped = new ArrayList<>();
        for (int i = 0;; i++) {
            EmqIdException probe = EmqIdException.probe(i);
            if (probe == null) {
                break;
            }
            assertEquals(Native.GATES.get(i), probe.gate().code());
            assertTrue(probe.getMessage().startsWith(probe.gate().code() + ": "), probe.getMessage());
            mapped.add(probe.gate());
        }
        assertEquals(Native.GATES.size(), mapped.size());
        assertEquals(Contract.GATES, mapped);
        assertEquals(List.of(Gate.values()), mapped, "the enum is the core's list, in its order");
    }

    private static Gate gateOf(Runnable call) {
        return assertThrows(EmqIdException.class, call::run).gate();
    }

    @Test
    void eachGateIsRaisedByAPublicCall() {
        assertEquals(Gate.LENGTH, gateOf(() -> Id.parse("JOB")));
        assertEquals(Gate.NAMESPACE, gateOf(() -> Id.parse("job0KHTOWnGLuC")));
        assertEquals(Gate.CHARSET, gateOf(() -> Id.parse("JOB0KHTOWnGL!C")));
        assertEquals(Gate.RANGE, gateOf(() -> Id.parse("JOBzzzzzzzzzzz")));
        assertEquals(Gate.RANGE, gateOf(() -> Codec.encode("JOB", -1)));
        assertEquals(Gate.RANGE, gateOf(() -> Codec.encode("jo", 1)), "encode refuses a bad namespace as range");
        assertEquals(Gate.QUEUE, gateOf(() -> Keyspace.key("", "pending")));
        assertEquals(Gate.KIND, gateOf(() -> Keyspace.key("q", "no-such-type")));
        assertEquals(Gate.RANGE, gateOf(() -> new Minter(Contract.MAX_NODE + 1)));
        assertEquals(Gate.RANGE, gateOf(() -> new Minter(-1)));
        assertEquals(Gate.NODE, gateOf(() -> Lease.parseRenewal(0)));
        assertEquals(Gate.RANGE, gateOf(() -> LeaseTerms.of(0, 0)));
    }

    @Test
    void parseWaitsRefusalCarriesItsCounts() {
        EmqIdException refused = assertThrows(EmqIdException.class, () -> Lease.parseWait(1, 2));
        assertEquals(Gate.NODE, refused.gate());
        assertEquals(1, refused.acknowledged().getAsLong());
        assertEquals(2, refused.replicas().getAsLong());
        EmqIdException other = assertThrows(EmqIdException.class, () -> Lease.parseRenewal(0));
        assertTrue(other.acknowledged().isEmpty() && other.replicas().isEmpty());
    }

    @Test
    void aBatchRefusalNamesItsItemAndKeepsItsGate() {
        EmqIdException refused = assertThrows(EmqIdException.class,
                () -> Codec.decodeMany("JOB0KHTOWnGLuC", "JOB0KHTOWnGL!C"));
        assertEquals(Gate.CHARSET, refused.gate());
        assertTrue(refused.getMessage().startsWith("charset: item 1: "), refused.getMessage());
        EmqIdException range = assertThrows(EmqIdException.class, () -> Codec.encodeMany("JOB", new long[] {1, -5}));
        assertEquals(Gate.RANGE, range.gate());
        assertTrue(range.getMessage().contains("item 1"), range.getMessage());
        assertEquals(Gate.RANGE, gateOf(() -> Codec.encodeMany("J0B", new long[] {1})));
        assertEquals(Gate.LENGTH, gateOf(() -> Codec.decodeManyPacked(new byte[15])));
    }

    @Test
    void textWithNoUtf8IsRefusedNotReplaced() {
        assertThrows(IllegalArgumentException.class, () -> Keyspace.slot("a\uD800b"));
        assertEquals(Keyspace.slot("a?b".getBytes(java.nio.charset.StandardCharsets.UTF_8)), Keyspace.slot("a?b"));
        assertTrue(!Id.isValid("JOB0KHTOWnGL\uD800"));
        assertTrue(!Id.isValid((CharSequence) null));
    }

    @Test
    void theSelfCheckNamesTheFirstLineAnsweredDifferently() {
        Contract.selfCheck();
        SelfCheckException wrong = assertThrows(SelfCheckException.class, () -> Contract.selfCheck("slot foo 1\n"));
        assertEquals("slot foo 1", wrong.line());
        assertThrows(SelfCheckException.class, () -> Contract.selfCheck(""));
        SelfCheckException unknown = assertThrows(SelfCheckException.class, () -> Contract.selfCheck("frobnicate x\n"));
        assertEquals("frobnicate x", unknown.line());
        assertNull(EmqIdException.probe(Native.GATES.size()));
    }
}
