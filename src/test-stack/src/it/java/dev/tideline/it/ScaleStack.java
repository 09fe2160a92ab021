package dev.tideline.it;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.it.ops.JmxReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import dev.tideline.it.support.Waits;

/** What the scale tests share: reading many change topics at once, and the worker's figures over JMX. */
final class ScaleStack {
    private ScaleStack() {
    }

    /** A consumer on every topic matching {@code pattern}, new topics included within a second; from the beginning. */
    static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String pattern) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "scale-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "1000");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        c.subscribe(Pattern.compile(pattern));
        return c;
    }

    /** Polls until {@code done} says so (it sees each change record once, decoded), or fails after {@code deadline}. */
    static void readChanges(KafkaConsumer<byte[], byte[]> consumer, Consumer<ChangeEvent> each, java.util.function.BooleanSupplier done,
                            String what, Duration deadline) {
        readChanges(consumer, (e, r) -> each.accept(e), done, what, deadline);
    }

    /** As above, with the record each change came in (its timestamp, its topic). */
    static void readChanges(KafkaConsumer<byte[], byte[]> consumer, java.util.function.BiConsumer<ChangeEvent, ConsumerRecord<byte[], byte[]>> each,
                            java.util.function.BooleanSupplier done, String what, Duration deadline) {
        // the consumer's poll waits up to 200 ms itself: poll again at once
        Waits.until(deadline, Duration.ofMillis(1), () -> {
            if (done.getAsBoolean()) {
                return true;
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (isChange(r)) {
                    each.accept(EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(r.value())), r);
                }
            }
            return false;
        }, Boolean::booleanValue, x -> "timed out after " + deadline + " waiting for " + what);
    }

    static boolean isChange(ConsumerRecord<byte[], byte[]> r) {
        Header kind = r.headers().lastHeader(EventHeaders.KIND);
        return r.value() != null && kind != null && EventHeaders.KIND_CHANGE.equals(new String(kind.value(), StandardCharsets.UTF_8));
    }

    /** The broker's topic names. */
    static java.util.Set<String> topics(String bootstrap) {
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                Map.of(org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            return admin.listTopics().names().get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the topics", e);
        }
    }

    /** The worker JVM's live threads. */
    static int workerThreads(JmxReader jmx) {
        return (int) jmx.longAttribute("java.lang:type=Threading", "ThreadCount");
    }

    /** The source task's MBean name. */
    static String task(String connector) {
        return "dev.tideline:type=source-task,connector=" + connector + ",task=0";
    }

    /** Waits until a task attribute satisfies {@code ok}. */
    static void awaitAttribute(JmxReader jmx, String bean, String attribute, Predicate<Object> ok, Duration deadline) {
        Waits.until(deadline, Duration.ofMillis(250), () -> jmx.attribute(bean, attribute), v -> v != null && ok.test(v),
                v -> bean + " " + attribute + " is " + (v instanceof Object[] a ? java.util.Arrays.toString(a) : v) + " after " + deadline);
    }
}
