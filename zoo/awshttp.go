package zoo

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

const modSQS = "github.com/aws/aws-sdk-go-v2/service/sqs"

// AWSClients returns the AWS SDK rows of the loopback storm: a real Amazon
// SQS service client (service/sqs, whose retry middleware and standard
// retryer come from aws-sdk-go-v2) calling GetQueueUrl on the local server,
// with static credentials, a region and BaseEndpoint set, so nothing leaves
// the machine. The server speaks the SQS JSON protocol: during the outage it
// answers 503 ServiceUnavailable, or 400 ThrottlingException for the
// throttling row.
//
// The standard retryer draws its jitter from crypto/rand through an
// internal package of the SDK: no option seeds it (StandardOptions.Backoff
// replaces the formula itself), so these rows vary from run to run.
func AWSClients() []HTTPClient {
	fix := func(o *awsretry.StandardOptions) {
		o.MaxAttempts, o.MaxBackoff, o.RateLimiter = 20, 5*time.Second, ratelimit.None
	}
	return []HTTPClient{
		{Name: "aws-sdk-go-v2 retry", Module: modAWS, Settings: "service/sqs " + Version(modSQS) + ", a client per caller, defaults",
			callers: sqsCallers(false, nil), answer: sqsAnswer(false)},
		{Name: "aws-sdk-go-v2 retry", Module: modAWS, Settings: "one SQS client for all callers, defaults",
			callers: sqsCallers(true, nil), answer: sqsAnswer(false)},
		{Name: "aws-sdk-go-v2 retry", Module: modAWS, Settings: "one SQS client for all, throttling errors",
			callers: sqsCallers(true, nil), answer: sqsAnswer(true)},
		{Name: "aws-sdk-go-v2 retry", Module: modAWS, Fix: true,
			Settings: "one SQS client, MaxAttempts 20, MaxBackoff 5 s, ratelimit.None",
			callers:  sqsCallers(true, fix), answer: sqsAnswer(false)},
	}
}

// sqsCallers builds SQS clients: one for all callers when shared (one
// retryer, so one retry quota, as in a service that makes one client), else
// one per caller. opts, if not nil, configures a retry.NewStandard retryer;
// nil leaves the client to make its default one. Each call goes through the
// caller's own connection pool and reports the retryer's chosen delays.
func sqsCallers(shared bool, opts func(*awsretry.StandardOptions)) func(uint64, string) func(int, *http.Transport, func(time.Duration)) func(context.Context) error {
	return func(_ uint64, url string) func(int, *http.Transport, func(time.Duration)) func(context.Context) error {
		newClient := func() *sqs.Client {
			o := sqs.Options{
				Region:       "us-east-1",
				BaseEndpoint: aws.String(url),
				Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
					return aws.Credentials{AccessKeyID: "AKIDZOO", SecretAccessKey: "zoo-secret", Source: "zoo static"}, nil
				}),
			}
			if opts != nil {
				o.Retryer = awsretry.NewStandard(opts)
			}
			return sqs.New(o)
		}
		var one *sqs.Client
		if shared {
			one = newClient()
		}
		return func(_ int, base *http.Transport, wait func(time.Duration)) func(context.Context) error {
			client := one
			if client == nil {
				client = newClient()
			}
			httpClient := &http.Client{Transport: base}
			return func(ctx context.Context) error {
				_, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("zoo")}, func(o *sqs.Options) {
					o.HTTPClient = httpClient
					o.Retryer = observedRetryer{o.Retryer.(aws.RetryerV2), wait} // the client's retryer is a *retry.Standard
				})
				return err
			}
		}
	}
}

// observedRetryer reports every delay its retryer chooses.
type observedRetryer struct {
	aws.RetryerV2
	wait func(time.Duration)
}

// RetryDelay is the wrapped retryer's delay, reported to wait.
func (r observedRetryer) RetryDelay(attempt int, err error) (time.Duration, error) {
	d, err := r.RetryerV2.RetryDelay(attempt, err)
	if err == nil {
		r.wait(d)
	}
	return d, err
}

// sqsAnswer answers as Amazon SQS does in its JSON protocol: a queue URL,
// or during the outage 503 ServiceUnavailable, or with throttle 400
// ThrottlingException (the SDK's standard retryer classes both as
// retryable, the second as throttling).
func sqsAnswer(throttle bool) func(http.ResponseWriter, bool) {
	return func(w http.ResponseWriter, down bool) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amzn-Requestid", "00000000-0000-0000-0000-000000000000")
		switch {
		case !down:
			io.WriteString(w, `{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/000000000000/zoo"}`)
		case throttle:
			w.Header().Set("X-Amzn-Query-Error", "ThrottlingException;Sender")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"__type":"com.amazonaws.sqs#ThrottlingException","message":"Rate exceeded"}`)
		default:
			w.Header().Set("X-Amzn-Query-Error", "ServiceUnavailable;Receiver")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"__type":"com.amazonaws.sqs#ServiceUnavailable","message":"Service is unavailable"}`)
		}
	}
}
