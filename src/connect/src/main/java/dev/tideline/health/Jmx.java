package dev.tideline.health;

import dev.tideline.log.LogText;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers a task's MBeans on the platform MBean server (where the worker's own metrics are) and
 * unregisters them all on {@link #close()}. A name left over by a task that was not stopped cleanly
 * is replaced: the new task is the one that reports now.
 */
public final class Jmx implements AutoCloseable {
    public static final String DOMAIN = "dev.tideline";
    private static final Logger log = LoggerFactory.getLogger(Jmx.class);

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final List<ObjectName> registered = new ArrayList<>();

    /** {@code dev.tideline:type=<type>,connector=<name>,task=<n>[,collection=<db.coll>]}, values quoted when needed. */
    public static ObjectName name(String type, TaskIdentity task, String collection) {
        return name(type, task, "collection", collection);
    }

    /** {@code dev.tideline:type=<type>,connector=<name>,task=<n>[,<key>=<value>]}, the last key only with a value. */
    public static ObjectName name(String type, TaskIdentity task, String key, String keyValue) {
        StringBuilder s = new StringBuilder(DOMAIN).append(":type=").append(type)
                .append(",connector=").append(value(task.connector()))
                .append(",task=").append(task.task());
        if (keyValue != null) {
            s.append(',').append(key).append('=').append(value(keyValue));
        }
        try {
            return new ObjectName(s.toString());
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("cannot build an MBean name from " + s, e);
        }
    }

    private static String value(String v) {
        for (char c : v.toCharArray()) {
            if (c == ',' || c == '=' || c == ':' || c == '"' || c == '*' || c == '?' || c == '\n' || c == '\\') {
                return ObjectName.quote(v);
            }
        }
        return v;
    }

    public synchronized void register(ObjectName name, Object mbean) {
        try {
            try {
                server.registerMBean(mbean, name);
            } catch (InstanceAlreadyExistsException stale) {
                server.unregisterMBean(name);
                server.registerMBean(mbean, name);
            }
            registered.add(name);
        } catch (JMException e) {
            // metrics must never stop a task from moving data
            log.warn("Could not register the MBean {}: {}", LogText.escape(name), LogText.message(e.toString()));
        }
    }

    @Override
    public synchronized void close() {
        for (ObjectName name : registered) {
            try {
                server.unregisterMBean(name);
            } catch (InstanceNotFoundException gone) {
                // already gone
            } catch (JMException e) {
                log.warn("Could not unregister the MBean {}: {}", LogText.escape(name), LogText.message(e.toString()));
            }
        }
        registered.clear();
    }
}
