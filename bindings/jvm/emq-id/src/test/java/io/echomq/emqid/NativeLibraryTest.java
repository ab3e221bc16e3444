package io.echomq.emqid;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The loader names this JVM's platform as the jar does, and refuses one the jar lacks by name. */
class NativeLibraryTest {
    @Test
    void thisPlatformIsOneTheJarCarries() throws Exception {
        String platform = NativeLibrary.platform();
        assertTrue(platform.matches("linux-(x86_64|aarch64)-(gnu|musl)"), platform);
        NativeLibrary.open(platform).close();
    }

    @Test
    void aPlatformTheJarLacksIsRefusedNamingItAndTheOnesItCarries() {
        UnsatisfiedLinkError refused = assertThrows(UnsatisfiedLinkError.class, () -> NativeLibrary.open("linux-riscv64-gnu"));
        assertTrue(refused.getMessage().contains("linux-riscv64-gnu"), refused.getMessage());
        assertTrue(refused.getMessage().contains("this jar carries: " + NativeLibrary.platform()), refused.getMessage());
    }
}
