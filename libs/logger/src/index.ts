/**
 * Structured JSON logging on winston. One root logger per process (`createLogger`),
 * a child per component (`logger.child({ component })`), a correlation id on every
 * line that handles a request or message (`logger.child({ correlationId })`).
 */
export { createLogger, redactUrls, type Logger, type LogLevel } from './logger';
