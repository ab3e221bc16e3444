package io.echomq.emqid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every fact the core hands to its hosts is a public constant here, with the core's value. */
class ContractTest {
    /** The public constant named {@code name}: {@code LEASE_*} facts live in {@link Lease}, the rest in {@link Contract}. */
    private static Object constant(String name) throws ReflectiveOperationException {
        Class<?> home = name.startsWith("LEASE_") ? Lease.class : Contract.class;
        String field = name.startsWith("LEASE_") ? name.substring("LEASE_".length()) : name;
        Field f = home.getField(field);
        assertEquals(Modifier.PUBLIC | Modifier.STATIC | Modifier.FINAL, f.getModifiers() & (Modifier.PUBLIC | Modifier.STATIC | Modifier.FINAL), name);
        return f.get(null);
    }

    @Test
    void everyNumberOfTheCoreIsAConstant() throws ReflectiveOperationException {
        for (Map.Entry<String, Long> fact : Native.NUMBERS.entrySet()) {
            assertEquals(fact.getValue().longValue(), ((Number) constant(fact.getKey())).longValue(), fact.getKey());
        }
    }

    @Test
    void everyNameOfTheCoreIsAConstant() throws ReflectiveOperationException {
        for (Map.Entry<String, String> fact : Native.TEXTS.entrySet()) {
            assertEquals(fact.getValue(), constant(fact.getKey()), fact.getKey());
        }
    }

    @Test
    void theVersionIsTheArtifactsAndTheScriptsDeclareTheLeaseKey() {
        assertEquals(Contract.VERSION, Native.VERSION);
        assertEquals(3, Lease.scripts().size());
        for (LeaseScript script : Lease.scripts()) {
            assertEquals(1, script.keys().size(), script.name());
            assertTrue(script.keys().get(0).contains(Lease.KEY), script.name() + " declares " + script.keys());
        }
        assertEquals("acquire", Lease.ACQUIRE.name());
    }
}
