/// <reference types="astro/client" />

declare namespace App {
  interface Locals {
    /** Correlation id of this request (x-request-id), carried into logs and 5xx bodies. */
    requestId: string;
  }
}
