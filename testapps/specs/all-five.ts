// The manual's five examples in one specification: what the per-step cost bench loads.
export { max_notifications_shown } from "./max-notifications.ts";
export { constantNotificationCount } from "./constant-count.ts";
export { errorDisappears } from "./error-disappears.ts";
export { notificationIncludesMessage } from "./notification-includes-name.ts";
export { counterStateMachine } from "./counter.ts";
